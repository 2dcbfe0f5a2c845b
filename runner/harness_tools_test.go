package runner

import (
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// toolHost is a host half that registers clock_add with harness.defineTool and
// harness.registerTool; %s is the value its result carries, so an update can change it.
const toolHost = `const add = harness.defineTool({
  name: 'clock_add',
  description: 'Adds two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  execute: (args) => ({ sum: args.a + args.b, v: %s }),
});
return { name: 'clock', apply(ctx) { harness.registerTool(ctx, add) } }`

// toolEnv defines and runs host halves through the tool registry as a model calls it.
type toolEnv struct {
	t     *testing.T
	e     *env
	tools *kit.Tools
}

func newToolEnv(t *testing.T) *toolEnv {
	e := newEnv(t, nil)
	tools, _ := kit.ToolsService.Get(e.root)
	return &toolEnv{t: t, e: e, tools: tools}
}

// define records code as a host-only Package on plugin (a PluginRef as JSON).
func (te *toolEnv) define(plugin, code string) dynamic.DefineOutput {
	te.t.Helper()
	var out dynamic.DefineOutput
	mustCall(te.t, te.e.invoker(), "s1", "cordis_define", defineArgs(plugin, `"Clock"`, `"Adds numbers."`, `{"host":`+jsonString(code)+`}`), &out)
	return out
}

// call calls tool name as session s1 and returns its result or error text.
func (te *toolEnv) call(name, args string) (string, string) {
	te.t.Helper()
	return call(te.t, te.e.invoker(), "s1", name, args)
}

func (te *toolEnv) run(d dynamic.DefineOutput, mode string) (string, string) {
	te.t.Helper()
	return te.call("cordis_run", `{"pluginId":"`+d.PluginID+`","packageId":"`+d.PackageID+`","mode":"`+mode+`"}`)
}

// registered reports whether the registry lists name.
func (te *toolEnv) registered(name string) bool {
	_, ok := te.tools.Get(name)
	return ok
}

// A tool a host half registers is callable as a model calls it, with its arguments
// checked against its schema, for exactly as long as its run: stop removes it, run brings
// it back, update swaps in the new Package's tool, undefine removes it.
func TestHarnessToolLifetime(t *testing.T) {
	te := newToolEnv(t)
	d1 := te.define(`{"kind":"new","idPrefix":"clock"}`, strings.Replace(toolHost, "%s", "1", 1))
	if te.registered("clock_add") {
		t.Fatal("clock_add is registered by a define; only a run registers it")
	}
	if _, err := te.run(d1, "run"); err != "" {
		t.Fatal(err)
	}
	if s, ok := te.tools.Get("clock_add"); !ok || s.Description != "Adds two numbers." || !strings.Contains(string(s.InputSchema), `"required":["a","b"]`) {
		t.Fatalf("clock_add in the registry = %+v, %v", s, ok)
	}
	if out, err := te.call("clock_add", `{"a":1,"b":2}`); out != `{"sum":3,"v":1}` || err != "" {
		t.Fatalf("clock_add = %s, %q; want {\"sum\":3,\"v\":1}", out, err)
	}
	if _, err := te.call("clock_add", `{"a":1}`); !strings.Contains(err, "b") {
		t.Fatalf("clock_add without b: %q, want the missing argument named", err)
	}

	if _, err := te.call("cordis_stop", `{"pluginId":"clock-1"}`); err != "" {
		t.Fatal(err)
	}
	if te.registered("clock_add") {
		t.Fatal("clock_add is still registered after cordis_stop")
	}
	if _, err := te.call("clock_add", `{"a":1,"b":2}`); err == "" {
		t.Fatal("clock_add answered after cordis_stop")
	}

	if _, err := te.run(d1, "run"); err != "" {
		t.Fatal(err)
	}
	d2 := te.define(`{"kind":"existing","pluginId":"clock-1"}`, strings.Replace(toolHost, "%s", "2", 1))
	if _, err := te.run(d2, "update"); err != "" {
		t.Fatal(err)
	}
	if out, err := te.call("clock_add", `{"a":2,"b":3}`); out != `{"sum":5,"v":2}` || err != "" {
		t.Fatalf("clock_add after the update = %s, %q; want the new Package's {\"sum\":5,\"v\":2}", out, err)
	}

	if _, err := te.call("cordis_undefine", `{"pluginId":"clock-1"}`); err != "" {
		t.Fatal(err)
	}
	if te.registered("clock_add") {
		t.Fatal("clock_add is still registered after cordis_undefine")
	}
}

// Bad arguments to harness.defineTool and harness.registerTool fail the run with the
// mount path's teaching errors, under harness's names, and leave no tool behind.
func TestHarnessToolErrors(t *testing.T) {
	te := newToolEnv(t)
	const apply = "\nreturn { name: 'clock', apply(ctx) { harness.registerTool(ctx, tool) } }"
	tests := []struct{ name, code, want string }{
		{"bad schema", `const tool = harness.defineTool({ name: 'clock_bad', description: 'd', parameters: { type: 'object', properties: { n: { type: 'nope' } } }, execute: () => 1 });` + apply,
			`harness.defineTool("clock_bad"): tool.parameters.properties.n.type must be one of string, number, integer, boolean, null, object, array; got "nope"`},
		{"not an object schema", `const tool = harness.defineTool({ name: 'clock_bad', description: 'd', parameters: { type: 'string' }, execute: () => 1 });` + apply,
			`tool.parameters.type must be "object": a tool's arguments are an object`},
		{"no name", `const tool = harness.defineTool({ description: 'd', execute: () => 1 });` + apply,
			"harness.defineTool: parameter tool.name: expected a non-empty string, got undefined"},
		{"bad name", `const tool = harness.defineTool({ name: 'clock add', description: 'd', execute: () => 1 });` + apply,
			"1 to 64 letters, digits, _ or -"},
		{"no execute", `const tool = harness.defineTool({ name: 'clock_bad', description: 'd' });` + apply,
			"harness.defineTool: parameter tool.execute: expected a function (args) => result, got undefined"},
		{"unknown member", `const tool = harness.defineTool({ name: 'clock_bad', description: 'd', execute: () => 1, parameter: {} });` + apply,
			"harness.defineTool: tool.parameter is not a member of a tool definition"},
		{"not a definition", `const tool = harness.defineTool(42);` + apply, "harness.defineTool: parameter tool: expected an object, got number"},
		{"a copy", `const tool = { ...harness.defineTool({ name: 'clock_bad', description: 'd', execute: () => 1 }) };` + apply,
			"harness.registerTool(ctx, tool): tool must be what harness.defineTool returned in this host half (a copy made with spread or Object.assign is not one)"},
		{"a plain definition", `const tool = { name: 'clock_bad', description: 'd', execute: () => 1 };` + apply,
			"harness.registerTool(ctx, tool): tool must be what harness.defineTool returned"},
		{"no ctx", `const tool = harness.defineTool({ name: 'clock_bad', description: 'd', execute: () => 1 });
return { name: 'clock', apply(ctx) { harness.registerTool(undefined, tool) } }`,
			"harness.registerTool(ctx, tool): ctx must be the ctx your plugin's apply(ctx) receives"},
		{"registered twice", `const tool = harness.defineTool({ name: 'clock_bad', description: 'd', execute: () => 1 });
return { name: 'clock', apply(ctx) { harness.registerTool(ctx, tool); harness.registerTool(ctx, tool) } }`,
			`ctx.tools.register("clock_bad"): kit: tool "clock_bad" is already registered by plugin "clock"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := te.define(`{"kind":"new","idPrefix":"clock"}`, tt.code)
			out, err := te.run(d, "run")
			if !strings.Contains(err, tt.want) {
				t.Fatalf("cordis_run = %s, %q\nwant the error to contain %q", out, err, tt.want)
			}
			if te.registered("clock_bad") {
				t.Fatal("clock_bad is registered after a failed run")
			}
		})
	}
}

// A name another Plugin's run holds is refused with the way out; once that run stops, the
// same Package runs and takes the name.
func TestHarnessToolDuplicateName(t *testing.T) {
	te := newToolEnv(t)
	code := strings.Replace(toolHost, "%s", "1", 1)
	first := te.define(`{"kind":"new","idPrefix":"clock"}`, code)
	second := te.define(`{"kind":"new","idPrefix":"clock"}`, code)
	if _, err := te.run(first, "run"); err != "" {
		t.Fatal(err)
	}
	_, err := te.run(second, "run")
	for _, want := range []string{`kit: tool "clock_add" is already registered by plugin "clock"`, "cordis_stop the Plugin that registered it"} {
		if !strings.Contains(err, want) {
			t.Fatalf("second cordis_run: %q\nwant it to contain %q", err, want)
		}
	}
	if out, err := te.call("clock_add", `{"a":1,"b":1}`); out != `{"sum":2,"v":1}` || err != "" {
		t.Fatalf("clock_add = %s, %q: the first run's tool must be untouched", out, err)
	}
	if _, err := te.call("cordis_stop", `{"pluginId":"`+first.PluginID+`"}`); err != "" {
		t.Fatal(err)
	}
	if _, err := te.run(second, "run"); err != "" {
		t.Fatalf("the second Plugin after the first stopped: %s", err)
	}
	if owner, _ := te.tools.Owner("clock_add"); owner == "" {
		t.Fatal("clock_add has no owner after the second run")
	}
}

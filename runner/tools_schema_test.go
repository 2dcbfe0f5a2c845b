package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/cordiskit/cordiskit/toolset"
	"github.com/google/go-cmp/cmp"
)

// copyTool registers clock_add from parameters, then clock_sum from what ctx.tools.get
// returns for clock_add, unchanged but for its name and execute; %s is how the code
// registers a definition (harness.registerTool(ctx, harness.defineTool(def)) in a host
// half, ctx.tools.register(def) in a mount).
const copyTool = `return { name: 'copier', apply(ctx) {
  const reg = (def) => %s
  reg({ name: 'clock_add', description: 'Adds two numbers.',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    execute: (args) => args.a + args.b })
  const got = ctx.tools.get('clock_add')
  reg({ ...got, name: 'clock_sum', execute: (args) => args.a + args.b })
} }`

// ctx.tools.get answers with inputSchema and ctx.tools.register (and harness.defineTool)
// takes parameters: both take both names, and what get returns registers again as it is —
// the copy has the same arguments' schema and enforces it — in a host half and in a mount.
func TestToolsGetRegistersAgain(t *testing.T) {
	for _, side := range []struct {
		name, reg string
		start     func(e *env, code string)
	}{
		{"host half", "harness.registerTool(ctx, harness.defineTool(def))", func(e *env, code string) {
			d := e.define(newPlugin("copy"), code, "")
			if _, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
				e.t.Fatal(err)
			}
		}},
		{"mount", "ctx.tools.register(def)", func(e *env, code string) {
			ts, err := toolset.New(e.root, nil)
			if err != nil {
				e.t.Fatal(err)
			}
			e.t.Cleanup(func() { _ = ts.Dispose(context.Background()) })
			if _, errText := call(e.t, e.invoker(), "s1", "cordis_mount", `{"code":`+jsonString(code)+`}`); errText != "" {
				e.t.Fatal(errText)
			}
		}},
	} {
		t.Run(side.name, func(t *testing.T) {
			e := newDefaultEnv(t)
			side.start(e, strings.Replace(copyTool, "%s", side.reg, 1))
			tools, _ := kit.ToolsService.Get(e.root)
			add, ok := tools.Get("clock_add")
			sum, ok2 := tools.Get("clock_sum")
			if !ok || !ok2 {
				t.Fatalf("registered: clock_add %v, clock_sum %v", ok, ok2)
			}
			if diff := cmp.Diff(string(add.InputSchema), string(sum.InputSchema)); diff != "" || !strings.Contains(string(sum.InputSchema), `"required":["a","b"]`) {
				t.Errorf("clock_sum's schema is not clock_add's (-add +sum):\n%s", diff)
			}
			if sum.Description != add.Description {
				t.Errorf("clock_sum's description %q, want clock_add's %q", sum.Description, add.Description)
			}
			inv := e.invoker()
			if out, errText := call(t, inv, "s1", "clock_sum", `{"a":1,"b":2}`); out != "3" || errText != "" {
				t.Errorf("clock_sum({a:1,b:2}) = %s, %q", out, errText)
			}
			if _, errText := call(t, inv, "s1", "clock_sum", `{"a":1}`); !strings.Contains(errText, `"b"`) {
				t.Errorf("clock_sum({a:1}) = %q, want the schema copied from get to refuse it", errText)
			}
		})
	}
}

// newDefaultEnv starts a runner as a runtime does, with the sandbox host New builds from
// Options (newEnv brings a host of its own).
func newDefaultEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, root: kit.New(nil)}
	r, err := New(e.root, &Options{Timeouts: &sandbox.Timeouts{Call: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	e.r = r
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := r.Dispose(ctx); err != nil {
			t.Errorf("Dispose: %v", err)
		}
		if err := e.root.Fiber().Dispose(ctx); err != nil {
			t.Errorf("root dispose: %v", err)
		}
	})
	return e
}

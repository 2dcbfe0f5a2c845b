package toolset_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/generated"
)

// jsOnlyToolsMembers are the members of ctx.tools that no Go signature can express
// (register takes an execute function), documented in the tools service's doc comment and
// in the mount ctx API instead of as catalogued methods.
var jsOnlyToolsMembers = []string{"register"}

// A listedMethod is one method signature cordis_inspect shows for a service.
type listedMethod struct {
	name   string
	params []string // the parameters' JavaScript types
	result string   // the result type, Promise<…> unwrapped
}

var signatureRE = regexp.MustCompile(`^    (async )?([A-Za-z_$][\w$]*)\((.*)\): (.+)$`)

// inspectedMethods parses the signatures of cordis_inspect {what:"api", name} — what a model
// reads before it writes code that calls the service.
func inspectedMethods(t *testing.T, report string) []listedMethod {
	t.Helper()
	var out []listedMethod
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(line, "type shapes") {
			break
		}
		m := signatureRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		lm := listedMethod{name: m[2], result: m[4]}
		if m[1] != "" {
			lm.result = strings.TrimSuffix(strings.TrimPrefix(lm.result, "Promise<"), ">")
		}
		if m[3] != "" {
			for _, p := range strings.Split(m[3], ", ") {
				_, typ, ok := strings.Cut(p, ": ")
				if !ok {
					t.Fatalf("cannot read parameter %q of %q", p, line)
				}
				lm.params = append(lm.params, typ)
			}
		}
		out = append(out, lm)
	}
	if len(out) == 0 {
		t.Fatalf("cordis_inspect lists no methods:\n%s", report)
	}
	return out
}

// toolsProbeCode registers the tool "sample" and a tool "probe" that calls one member of
// ctx.tools with the given arguments and reports what it got, keeping undefined apart
// from null (JSON cannot).
const toolsProbeCode = `return { name: 'lister', apply(ctx) {
	ctx.tools.register({ name: 'sample', description: 'A sample tool.',
		parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
		execute: () => 1 })
	const hasFunction = (v) => typeof v === 'function' || (v !== null && typeof v === 'object' && Object.values(v).some(hasFunction))
	ctx.tools.register({ name: 'probe', description: 'Calls one ctx.tools member.',
		parameters: { type: 'object', properties: { method: { type: 'string' }, args: { type: 'array' } } },
		execute: async ({ method, args }) => {
			if (method === undefined) return { keys: Object.keys(ctx.tools) }
			if (typeof ctx.tools[method] !== 'function') return { missing: typeof ctx.tools[method] }
			const r = await ctx.tools[method](...args)
			if (hasFunction(r)) return { leak: true }
			return r === undefined ? { undefined: true } : { value: r }
		} })
} }`

type probeResult struct {
	Keys      []string        `json:"keys"`
	Missing   string          `json:"missing"`
	Leak      bool            `json:"leak"`
	Undefined bool            `json:"undefined"`
	Value     json.RawMessage `json:"value"`
}

func (h *harness) probeTools(method string, args ...any) probeResult {
	h.t.Helper()
	in := map[string]any{"args": append([]any{}, args...)}
	if method != "" {
		in["method"] = method
	}
	var p probeResult
	if err := json.Unmarshal(h.mustCall("probe", in), &p); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// What cordis_inspect shows for the tools service is what mount code gets: every method it
// lists is callable on ctx.tools and returns a value of the documented shape, for a tool
// that exists and for one that does not.
func TestCtxToolsIsTheCataloguedService(t *testing.T) {
	h := newHarness(t)
	h.mount(toolsProbeCode)
	methods := inspectedMethods(t, h.inspect("api", "tools"))
	for _, m := range methods {
		for _, name := range []string{"sample", "no_such_tool"} {
			var args []any
			for _, p := range m.params {
				if p != "string" {
					t.Fatalf("%s: no test argument for a %s parameter; extend this test", m.name, p)
				}
				args = append(args, name)
			}
			got := h.probeTools(m.name, args...)
			switch {
			case got.Missing != "":
				t.Errorf("cordis_inspect lists tools.%s, but ctx.tools.%s is %s", m.name, m.name, got.Missing)
				continue
			case got.Leak:
				t.Errorf("ctx.tools.%s(%v) returned a function", m.name, args)
				continue
			}
			if err := checkShape(generated.Catalog, m.result, got); err != nil {
				t.Errorf("ctx.tools.%s(%v) does not match its signature %q: %v", m.name, args, m.result, err)
			}
		}
	}
	// The values, not only their shapes: the registry's view of "sample".
	var schema map[string]any
	if err := json.Unmarshal(h.probeTools("get", "sample").Value, &schema); err != nil {
		t.Fatal(err)
	}
	wantInput := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []any{"q"}}
	if schema["name"] != "sample" || schema["description"] != "A sample tool." || !reflect.DeepEqual(schema["inputSchema"], wantInput) {
		t.Errorf("ctx.tools.get('sample') = %v", schema)
	}
	if got := string(h.probeTools("owner", "sample").Value); got != `"lister"` {
		t.Errorf("ctx.tools.owner('sample') = %s, want \"lister\"", got)
	}
	var all []map[string]any
	if err := json.Unmarshal(h.probeTools("schemas").Value, &all); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range all {
		names = append(names, s["name"].(string))
	}
	if want := []string{"cordis_inspect", "cordis_mount", "cordis_unmount", "sample", "probe"}; !slices.Equal(names, want) {
		t.Errorf("ctx.tools.schemas() names %v, want %v", names, want)
	}
}

// ctx.tools has no member that cordis_inspect does not show: its catalogued methods, plus
// the JavaScript-only register, which the api section documents (in the tools service's
// doc and in the mount ctx API).
func TestCtxToolsHasNothingUndocumented(t *testing.T) {
	h := newHarness(t)
	h.mount(toolsProbeCode)
	named := h.inspect("api", "tools")
	want := slices.Clone(jsOnlyToolsMembers)
	for _, m := range inspectedMethods(t, named) {
		want = append(want, m.name)
	}
	got := h.probeTools("").Keys
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Object.keys(ctx.tools) = %v, but cordis_inspect shows %v", got, want)
	}
	all := h.inspect("api", "")
	for _, m := range jsOnlyToolsMembers {
		form := "tools." + m + "("
		if !strings.Contains(named, form) {
			t.Errorf("cordis_inspect what:\"api\" name:\"tools\" does not document the JavaScript-only %s:\n%s", form, named)
		}
		if !strings.Contains(all, "- "+form) {
			t.Errorf("cordis_inspect what:\"api\" does not list the JavaScript-only %s in the mount ctx API:\n%s", form, all)
		}
	}
}

// checkShape checks a probe result against a signature's result type: a union of
// undefined, basic types, arrays and catalogued named types.
func checkShape(cat *catalog.Catalog, typ string, got probeResult) error {
	alts := strings.Split(typ, " | ")
	if got.Undefined {
		if slices.Contains(alts, "undefined") || slices.Contains(alts, "void") {
			return nil
		}
		return fmt.Errorf("got undefined")
	}
	var v any
	if err := json.Unmarshal(got.Value, &v); err != nil {
		return err
	}
	var errs []string
	for _, alt := range alts {
		err := checkValue(cat, alt, v, "result")
		if err == nil {
			return nil
		}
		errs = append(errs, err.Error())
	}
	return fmt.Errorf("%s", strings.Join(errs, "; "))
}

func checkValue(cat *catalog.Catalog, typ string, v any, path string) error {
	if elem, ok := strings.CutSuffix(typ, "[]"); ok {
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array, got %T", path, v)
		}
		for i, e := range list {
			if err := checkValue(cat, elem, e, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		return nil
	}
	switch typ {
	case "unknown":
		return nil
	case "undefined", "void":
		return fmt.Errorf("%s: want undefined, got %v", path, v)
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: want a string, got %T", path, v)
		}
		return nil
	case "number":
		if _, ok := v.(float64); !ok {
			return fmt.Errorf("%s: want a number, got %T", path, v)
		}
		return nil
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: want a boolean, got %T", path, v)
		}
		return nil
	}
	ct, ok := cat.Type(typ)
	if !ok || ct.Kind != catalog.TypeStruct {
		return fmt.Errorf("%s: the test cannot check type %q; extend checkValue", path, typ)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want a %s object, got %T", path, typ, v)
	}
	fields := map[string]bool{}
	for _, f := range ct.Fields {
		fields[f.JSName] = true
		fv, present := obj[f.JSName]
		if !present {
			if f.Optional {
				continue
			}
			return fmt.Errorf("%s.%s: missing", path, f.JSName)
		}
		if err := checkValue(cat, f.JS, fv, path+"."+f.JSName); err != nil {
			return err
		}
	}
	for k := range obj {
		if !fields[k] {
			return fmt.Errorf("%s.%s: %s has no field %q", path, k, typ, k)
		}
	}
	return nil
}

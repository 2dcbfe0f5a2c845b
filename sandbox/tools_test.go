package sandbox

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox/internal/jsjson"
	"github.com/dop251/goja"
)

func TestToolRegistration(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`return { apply(ctx) {
		ctx.tools.register({
			name: 'reverse_text',
			description: 'Reverses text.',
			parameters: { type: 'object', properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1 } }, required: ['text'] },
			execute: async ({ text, times = 1 }) => ({ reversed: [...text].reverse().join(''), times }),
		})
		ctx.tools.register({ name: 'no_params', description: 'Takes nothing.', execute: () => 'ok' })
		ctx.tools.register({ name: 'bad_result', description: 'Returns junk.', parameters: { type: 'object', properties: { kind: { type: 'string' } } },
			execute: ({ kind }) => ({ fn: { nested: [1, kind === 'fn' ? () => 1 : kind === 'nan' ? NaN : kind === 'date' ? new Date() : undefined] } }) })
		ctx.tools.register({ name: 'throws', description: 'Throws.', execute: () => { throw new Error('tool exploded') } })
		globalThis.ctx = ctx
	} }`)
	tests := []struct{ tool, args, want string }{
		{"reverse_text", `{"text":"abc"}`, `{"reversed":"cba","times":1}`},
		{"reverse_text", `{"text":"héllo","times":2}`, `{"reversed":"olléh","times":2}`},
		{"reverse_text", `{}`, `error: tool "reverse_text": invalid arguments: validating root: required: missing properties: ["text"]`},
		{"reverse_text", `{"text":1}`, `error: tool "reverse_text": invalid arguments: validating root: validating /properties/text: type: 1 has type "integer", want "string"`},
		{"reverse_text", `{"text":"x","times":0}`, `error: tool "reverse_text": invalid arguments: validating root: validating /properties/times: minimum: 0/1 is less than 1.000000`},
		{"reverse_text", `not json`, `error: tool "reverse_text": the arguments are not JSON: invalid character 'o' in literal null (expecting 'u')`},
		{"no_params", ``, `"ok"`},
		{"bad_result", `{"kind":"fn"}`, `error: dyn-1: tool "bad_result": execute must return JSON data (a string, a finite number, a boolean, null, an array or a plain object): result.fn.nested[1]: expected JSON data, got function`},
		{"bad_result", `{"kind":"nan"}`, `error: dyn-1: tool "bad_result": execute must return JSON data (a string, a finite number, a boolean, null, an array or a plain object): result.fn.nested[1]: expected JSON data (a finite number), got NaN`},
		{"bad_result", `{"kind":"date"}`, `error: dyn-1: tool "bad_result": execute must return JSON data (a string, a finite number, a boolean, null, an array or a plain object): result.fn.nested[1]: expected JSON data (a plain object or array), got Date`},
		{"bad_result", `{"kind":"undef"}`, `error: dyn-1: tool "bad_result": execute must return JSON data (a string, a finite number, a boolean, null, an array or a plain object): result.fn.nested[1]: expected JSON data, got undefined`},
		{"throws", `{}`, `error: dyn-1: Error: tool exploded`},
	}
	for _, tt := range tests {
		out, err := h.call(tt.tool, tt.args)
		if err != nil {
			out = "error: " + err.Error()
		}
		if out != tt.want {
			t.Errorf("%s(%s)\n got %s\nwant %s", tt.tool, tt.args, out, tt.want)
		}
	}
	// testFacade binds no tools service: ctx.tools is register alone, and a read of
	// anything else says what there is (TestToolsViewIsTheBinding has the binding).
	views := []struct{ src, want string }{
		{`Object.keys(ctx.tools)`, `["register"]`},
		{`try { ctx.tools.schemas() } catch (e) { e.message }`, `"ctx.tools.schemas does not exist. ctx.tools has register; cordis_inspect what:\"api\" name:\"tools\" shows each with its shapes"`},
		{`typeof ctx.tools.then + typeof ctx.tools.toJSON + String(ctx.tools)`, `"undefinedundefined[object Object]"`},
	}
	for _, tt := range views {
		if got := h.eval(m, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
	// Registrations are effects of the mount: unmounting removes them.
	h.unmount(m, f)
	if _, err := h.call("reverse_text", `{"text":"x"}`); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("after unmount: %v", err)
	}
}

func TestToolDefinitionErrors(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.expose("")
	defer h.unmount(m, f)
	const pre = "ctx.tools.register: "
	tests := []struct{ def, want string }{
		{`undefined`, pre + "parameter tool: expected an object, got undefined"},
		{`{ description: 'd', execute() {} }`, pre + "parameter tool.name: expected a non-empty string, got undefined"},
		{`{ name: 'has space', description: 'd', execute() {} }`, pre + `parameter tool.name: expected 1 to 64 letters, digits, _ or - (model APIs require it), got "has space"`},
		{`{ name: 'x', execute() {} }`, pre + "parameter tool.description: expected a non-empty string, got undefined"},
		{`{ name: 'x', description: 'd' }`, pre + "parameter tool.execute: expected a function (args) => result, got undefined"},
		{`{ name: 'x', description: 'd', execute() {}, parameters: 42 }`, pre[:len(pre)-2] + `("x"): tool.parameters must be a JSON Schema object such as {type: 'object', properties: {…}}, got a number`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { properties: {} } }`, `ctx.tools.register("x"): tool.parameters.type must be "object": a tool's arguments are an object, e.g. {type: 'object', properties: {text: {type: 'string'}}, required: ['text']}`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object', properties: { n: { type: 'int' } } } }`, `ctx.tools.register("x"): tool.parameters.properties.n.type must be one of string, number, integer, boolean, null, object, array; got "int"`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object', properties: { 'a b': { type: 'array', items: { type: ['string', 5] } } } } }`, `ctx.tools.register("x"): tool.parameters.properties["a b"].items.type[1] must be one of string, number, integer, boolean, null, object, array; got 5`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object', properties: [] } }`, `ctx.tools.register("x"): tool.parameters.properties must be an object of schemas, got an array`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object', required: 'text' } }`, `ctx.tools.register("x"): tool.parameters.required must be an array of property names, got a string`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object', properties: { s: { type: 'string', pattern: '(' } } } }`, `ctx.tools.register("x"): tool.parameters.properties.s.pattern "(" is not a valid pattern: error parsing regexp: missing closing ): ` + "`(`"},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object', properties: { s: { $ref: 'http://example.com/s.json' } } } }`, `ctx.tools.register("x"): tool.parameters.properties.s.$ref must point inside the schema ("#/$defs/…"); remote references are not loaded, got "http://example.com/s.json"`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object', properties: { s: { $ref: '#/$defs/missing' } } } }`, `ctx.tools.register("x"): tool.parameters.properties.s.$ref: "#/$defs/missing" points at no schema (nothing at "/$defs/missing")`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object', properties: { f: { default: () => 1 } } } }`, `ctx.tools.register: tool.parameters.properties.f.default: expected JSON data, got function`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object', properties: { n: { type: 'number', minimum: 'zero' } } } }`, `ctx.tools.register("x"): tool.parameters.properties.n.minimum must be a number, got a string`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object', oneOf: [] } }`, `ctx.tools.register("x"): tool.parameters.oneOf must be a non-empty array of schemas, got an array`},
		{`{ name: 'x', description: 'd', execute() {}, paramaters: { type: 'object' } }`, `ctx.tools.register: tool.paramaters is not a member of a tool definition (did you mean "parameters"?); a definition has name, description, parameters (the arguments' JSON Schema, also spelled inputSchema) and execute`},
		{`{ name: 'x', description: 'd', execute() {}, input_schema: { type: 'object' } }`, `ctx.tools.register: tool.input_schema is not a member of a tool definition (did you mean "inputSchema"?)`},
		{`{ name: 'x', description: 'd', execute() {}, outputSchema: { type: 'string' } }`, `ctx.tools.register: tool.outputSchema is not taken: a JavaScript tool's result is not checked against a schema. Remove outputSchema and say what execute returns in the description`},
		{`{ name: 'x', description: 'd', execute() {}, parameters: { type: 'object' }, inputSchema: { type: 'object' } }`, `ctx.tools.register: tool.parameters and tool.inputSchema are the same member (the arguments' JSON Schema) under two names; give one of them`},
		{`{ name: 'x', description: 'd', execute() {}, inputSchema: { type: 'array' } }`, `ctx.tools.register("x"): tool.inputSchema.type must be "object"`},
		{`{ name: 'cordis_probe', description: 'd', execute() {} }`, ""},
		{`{ name: 'cordis_probe', description: 'd', execute() {} }`, `ctx.tools.register("cordis_probe"): kit: tool "cordis_probe" is already registered by plugin "probe"; plugin "probe" cannot register it again: already registered`},
	}
	for _, tt := range tests {
		got := h.eval(m, `try { ctx.tools.register(`+tt.def+`); "" } catch (e) { e.message }`)
		want := jsonString(tt.want)
		if !strings.HasPrefix(got, strings.TrimSuffix(want, `"`)) {
			t.Errorf("%s\n got %s\nwant %s", tt.def, got, want)
		}
	}
}

func jsonString(s string) string {
	return string(jsjson.AppendString(nil, s))
}

// A tool result must be JSON data: values JSON.stringify would turn into {} (or worse) are
// refused with their path, not silently emptied.
func TestToolResultMustBePlainData(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`return { apply(ctx) {
		class Point { constructor() { this.x = 1 } }
		const kinds = {
			map: () => new Map([[1, 2]]),
			set: () => new Set([1]),
			weakmap: () => new WeakMap(),
			date: () => new Date(0),
			instance: () => new Point(),
			number: () => new Number(1),
			string: () => new String('s'),
			boolean: () => new Boolean(true),
			typed: () => new Uint8Array(2),
			buffer: () => new ArrayBuffer(2),
			regexp: () => /x/,
			symbolobj: () => Object(Symbol('s')),
			subarray: () => new (class List extends Array {})(),
			arrayproxy: () => new Proxy([], {}),
			protoproxy: () => Object.create(new Map()),
			nested: () => ({ a: [1, { when: new Map() }] }),
			plain: () => ({ a: [1, { b: null }], s: 'x' }),
			nullproto: () => Object.assign(Object.create(null), { a: 1 }),
			proxied: () => new Proxy({ a: 1 }, {}),
			replaced: () => { globalThis.Object = function () {}; return { ok: true } },
		}
		ctx.tools.register({ name: 'result', description: 'd', parameters: { type: 'object', properties: { kind: { type: 'string' } } },
			execute: ({ kind }) => kinds[kind]() })
	} }`)
	defer h.unmount(m, f)
	const prefix = `dyn-1: tool "result": execute must return JSON data (a string, a finite number, a boolean, null, an array or a plain object): `
	tests := []struct{ kind, want string }{
		{"map", prefix + `result: expected JSON data (a plain object or array), got Map`},
		{"set", prefix + `result: expected JSON data (a plain object or array), got Set`},
		{"weakmap", prefix + `result: expected JSON data (a plain object or array), got WeakMap`},
		{"date", prefix + `result: expected JSON data (a plain object or array), got Date`},
		{"instance", prefix + `result: expected JSON data (a plain object or array), got Point`},
		{"number", prefix + `result: expected JSON data (a plain object or array), got Number`},
		{"string", prefix + `result: expected JSON data (a plain object or array), got String`},
		{"boolean", prefix + `result: expected JSON data (a plain object or array), got Boolean`},
		{"typed", prefix + `result: expected JSON data (a plain object or array), got Uint8Array`},
		{"buffer", prefix + `result: expected JSON data (a plain object or array), got ArrayBuffer`},
		{"regexp", prefix + `result: expected JSON data (a plain object or array), got RegExp`},
		{"symbolobj", prefix + `result: expected JSON data (a plain object or array), got Symbol`},
		{"subarray", prefix + `result: expected JSON data (a plain array), got List`},
		{"arrayproxy", prefix + `result: expected JSON data (a plain object or array), got Array`},
		{"protoproxy", prefix + `result: expected JSON data (a plain object or array), got Map`},
		{"nested", prefix + `result.a[1].when: expected JSON data (a plain object or array), got Map`},
		{"plain", `{"a":[1,{"b":null}],"s":"x"}`},
		{"nullproto", `{"a":1}`},
		{"proxied", `{"a":1}`},
		{"replaced", `{"ok":true}`},
	}
	for _, tt := range tests {
		out, err := h.call("result", `{"kind":"`+tt.kind+`"}`)
		if err != nil {
			out = err.Error()
		}
		if out != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.kind, out, tt.want)
		}
	}
	// console.log of such a value no longer prints {}.
	h.eval(m, `console.log('logged', new Map([[1, 2]]), { a: 1 })`)
	if !strings.Contains(h.log.String(), `logged [object] {\"a\":1}`) {
		t.Errorf("console.log: %s", h.log.String())
	}
}

// A definition may give the arguments' schema as inputSchema, the name ctx.tools.get
// returns it under, and undefined members count as absent: a definition spread from a
// schema the registry returned registers with that schema.
func TestToolDefinitionInputSchema(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`return { apply(ctx) {
		ctx.tools.register({ name: 'spelled', description: 'd', outputSchema: undefined, parameters: undefined,
			inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
			execute: ({ n }) => n + 1 })
	} }`)
	defer h.unmount(m, f)
	if out, err := h.call("spelled", `{"n":1}`); err != nil || out != "2" {
		t.Errorf("spelled({n:1}) = %s, %v", out, err)
	}
	if _, err := h.call("spelled", `{}`); err == nil || !strings.Contains(err.Error(), `missing properties: ["n"]`) {
		t.Errorf("spelled({}) = %v, want the inputSchema enforced", err)
	}
}

// With a binder for the tools service in the façade, ctx.tools is that binding's members
// plus register — nothing else — and stays read-only.
func TestToolsViewIsTheBinding(t *testing.T) {
	fac, err := Merge(testFacade, &Facade{Services: map[string]ServiceBinder{
		"tools": func(r *Realm, v any) (*goja.Object, error) {
			tools, ok := v.(*kit.Tools)
			if !ok {
				return nil, fmt.Errorf("got a %T", v)
			}
			o := r.rt.NewObject()
			_ = o.Set("count", r.Func("tools.count", func(goja.FunctionCall) goja.Value {
				return r.rt.ToValue(len(tools.Schemas()))
			}))
			return o, nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, nil)
	h.sb = New(&Options{Facade: fac, Timeouts: h.sb.Timeouts().ptr(), Logger: slog.New(slog.NewTextHandler(h.log, nil))})
	m, f := h.expose("")
	defer h.unmount(m, f)
	tests := []struct{ src, want string }{
		{`Object.keys(ctx.tools)`, `["count","register"]`},
		{`ctx.tools.register({ name: 'one', description: 'd', execute: () => 1 }); ctx.tools.count()`, `1`},
		{`try { ctx.tools.count = () => 99 } catch (e) { e.message }`, `"ctx.tools is read-only: cannot assign ctx.tools.count"`},
		{`try { delete ctx.tools.register } catch (e) { e.message }`, `"ctx.tools is read-only: cannot delete ctx.tools.register"`},
		{`try { ctx.tools.cont } catch (e) { e.message }`, `"ctx.tools.cont does not exist (did you mean \"count\"?). ctx.tools has count, register; cordis_inspect what:\"api\" name:\"tools\" shows each with its shapes"`},
		{`ctx.tools === ctx.get('tools') && ctx.tools.count()`, `1`},
	}
	for _, tt := range tests {
		if got := h.eval(m, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// A binder that fails is reported where mount code reads ctx.tools, not swallowed.
func TestToolsViewBinderError(t *testing.T) {
	fac, err := Merge(testFacade, &Facade{Services: map[string]ServiceBinder{
		"tools": func(*Realm, any) (*goja.Object, error) { return nil, fmt.Errorf("binder broke") },
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, nil)
	h.sb = New(&Options{Facade: fac, Timeouts: h.sb.Timeouts().ptr(), Logger: slog.New(slog.NewTextHandler(h.log, nil))})
	m, f := h.expose("")
	defer h.unmount(m, f)
	if got := h.eval(m, `try { ctx.tools; 'read' } catch (e) { e.message }`); got != `"ctx.tools: binder broke"` {
		t.Errorf("reading ctx.tools = %s", got)
	}
}

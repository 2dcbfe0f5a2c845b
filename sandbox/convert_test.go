package sandbox

import (
	"encoding/json"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// installProbes defines arg(kind, value), which converts value with the Arg* helper for
// kind and returns it rendered by Go, so tests see exactly what Go received.
func installProbes(r *Realm) {
	set(r, "arg", func(r *Realm) any {
		return r.Func("t.probe", func(call goja.FunctionCall) goja.Value {
			c := goja.FunctionCall{This: call.This, Arguments: call.Arguments[1:]}
			var got any
			switch k := call.Argument(0).String(); k {
			case "string":
				got = argString(r, c, 0, "fs.readFile", "path")
			case "bool":
				got = conv.Bool(thrower{r}, c.Argument(0), "t.flag", "on")
			case "int":
				got = conv.Int(thrower{r}, c.Argument(0), "t.count", "n")
			case "float":
				got = conv.Float(thrower{r}, c.Argument(0), "t.ratio", "x")
			case "duration":
				got = conv.Duration(thrower{r}, c.Argument(0), "t.wait", "ms")
			case "object":
				got = conv.Object(thrower{r}, c.Argument(0), "t.opts", "opts").Keys()
			case "callback":
				fn := argCallback(r, c, 0, "t.each", "fn")
				v, err := fn(goja.Undefined())
				if err != nil {
					r.throw(err)
				}
				got = v.String()
			case "slice":
				got = len(toSlice(r, c.Argument(0), "opts.items"))
			case "json":
				got = string(ToJSON(r, c.Argument(0), "opts.data"))
			default:
				panic("unknown kind " + k)
			}
			return r.rt.ToValue(fmt.Sprintf("%T %v", got, got))
		})
	})
}

func TestArgConversions(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	installProbes(r)
	tests := []struct {
		expr string
		want string // the Go value as "%T %v", or "error: <message>"
	}{
		{`arg("string", "a/b.txt")`, `"string a/b.txt"`},
		{`arg("string", "\ud800x")`, "\"string \ufffdx\""}, // lone surrogate → U+FFFD
		{`arg("string", 42)`, "error: dyn-1: TypeError: fs.readFile: parameter path: expected a string, got number"},
		{`arg("string")`, "error: dyn-1: TypeError: fs.readFile: parameter path: expected a string, got undefined"},
		{`arg("string", null)`, "error: dyn-1: TypeError: fs.readFile: parameter path: expected a string, got null"},
		{`arg("string", new String("x"))`, "error: dyn-1: TypeError: fs.readFile: parameter path: expected a string, got String"},
		{`arg("bool", true)`, `"bool true"`},
		{`arg("bool", 1)`, "error: dyn-1: TypeError: t.flag: parameter on: expected a boolean, got number"},
		{`arg("int", 42)`, `"int64 42"`},
		{`arg("int", -9007199254740992)`, `"int64 -9007199254740992"`},
		{`arg("int", 2**53 + 2)`, "error: dyn-1: TypeError: t.count: parameter n: expected an integer between -2^53 and 2^53, got 9007199254740994"},
		{`arg("int", 1.5)`, "error: dyn-1: TypeError: t.count: parameter n: expected an integer, got 1.5"},
		{`arg("int", NaN)`, "error: dyn-1: TypeError: t.count: parameter n: expected an integer, got NaN"},
		{`arg("int", "3")`, "error: dyn-1: TypeError: t.count: parameter n: expected an integer, got string"},
		{`arg("float", 0.25)`, `"float64 0.25"`},
		{`arg("float", -0)`, `"float64 -0"`},
		{`arg("float", Infinity)`, "error: dyn-1: TypeError: t.ratio: parameter x: expected a finite number, got Infinity"},
		{`arg("float", NaN)`, "error: dyn-1: TypeError: t.ratio: parameter x: expected a finite number, got NaN"},
		{`arg("duration", 1500)`, `"time.Duration 1.5s"`},
		{`arg("duration", 0.5)`, `"time.Duration 500µs"`},
		{`arg("duration", -1)`, "error: dyn-1: TypeError: t.wait: parameter ms: expected a number of milliseconds between 0 and 2^63 ns, got -1"},
		{`arg("duration", 1e300)`, "error: dyn-1: TypeError: t.wait: parameter ms: expected a number of milliseconds between 0 and 2^63 ns, got 1e+300"},
		{`arg("object", {a: 1, b: {c: 2}})`, `"[]string [a b]"`},
		{`arg("object", [1])`, "error: dyn-1: TypeError: t.opts: parameter opts: expected an object, got array"},
		{`arg("object", null)`, "error: dyn-1: TypeError: t.opts: parameter opts: expected an object, got null"},
		{`arg("object", () => 1)`, "error: dyn-1: TypeError: t.opts: parameter opts: expected an object, got function"},
		{`arg("callback", () => "called")`, `"string called"`},
		{`arg("callback", "nope")`, "error: dyn-1: TypeError: t.each: parameter fn: expected a function, got string"},
		{`arg("slice", [1, 2, 3])`, `"int 3"`},
		{`arg("slice", {length: 2})`, "error: dyn-1: TypeError: opts.items: expected an array, got object"},
		{`arg("json", {a: [1, "x", null, true, {b: undefined}], c: undefined})`, `"string {\"a\":[1,\"x\",null,true,{}]}"`},
		{`arg("json", {a: [1, NaN]})`, "error: dyn-1: TypeError: opts.data.a[1]: expected JSON data (a finite number), got NaN"},
		{`arg("json", {"odd key": () => 1})`, "error: dyn-1: TypeError: opts.data[\"odd key\"]: expected JSON data, got function"},
		{`arg("json", [1, , 3])`, "error: dyn-1: TypeError: opts.data[1]: expected JSON data, got undefined"},
		{`arg("json", {when: new Date(0)})`, "error: dyn-1: TypeError: opts.data.when: expected JSON data (a plain object or array), got Date"},
		{`arg("json", {n: 10n})`, "error: dyn-1: TypeError: opts.data.n: expected JSON data, got bigint"},
		{`const o = {}; o.self = o; arg("json", o)`, "error: dyn-1: TypeError: opts.data.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self.self: expected JSON data nested at most 64 levels deep, got deeper nesting (a cycle?)"},
		{`arg("json", "\ud800")`, "\"string \\\"\ufffd\\\"\""},
		{`arg("json", {big: 1e21, small: 1e-7, neg: -0, x: 1.5})`, `"string {\"big\":1e+21,\"small\":1e-7,\"neg\":0,\"x\":1.5}"`},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			if got := runJSON(r, tt.expr); got != tt.want {
				t.Errorf("%s\n got: %s\nwant: %s", tt.expr, got, tt.want)
			}
		})
	}
	// The realm keeps serving after every throw.
	if got := runJSON(r, `1 + 1`); got != "2" {
		t.Fatalf("after the table: %s", got)
	}
}

func TestFromJSONAndAny(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	type withMethods struct {
		Name   string `json:"name"`
		hidden int
	}
	tests := []struct {
		name string
		in   func(r *Realm) goja.Value
		want string
	}{
		{"json object order", func(r *Realm) goja.Value {
			return FromJSON(r, json.RawMessage(`{"b":1,"a":[true,null,"x"],"c":{"d":1.5}}`))
		}, `{"b":1,"a":[true,null,"x"],"c":{"d":1.5}}`},
		{"json __proto__ is an own key", func(r *Realm) goja.Value { return FromJSON(r, json.RawMessage(`{"__proto__":{"polluted":1}}`)) }, `{"__proto__":{"polluted":1}}`},
		{"json big integer rounds like JSON.parse", func(r *Realm) goja.Value { return FromJSON(r, json.RawMessage(`9007199254740993`)) }, `9007199254740992`},
		{"json empty is undefined", func(r *Realm) goja.Value { return FromJSON(r, nil) }, `undefined`},
		{"any nil", func(r *Realm) goja.Value { return anyValue(r, nil) }, `null`},
		{"any map", func(r *Realm) goja.Value {
			return anyValue(r, map[string]any{"z": 1, "a": []any{"x", 2.5, false, nil}})
		}, `{"a":["x",2.5,false,null],"z":1}`},
		{"any struct is plain data", func(r *Realm) goja.Value { return anyValue(r, withMethods{Name: "n", hidden: 3}) }, `{"name":"n"}`},
		{"any []string", func(r *Realm) goja.Value { return anyValue(r, []string{"a", "b"}) }, `["a","b"]`},
		{"any uint8", func(r *Realm) goja.Value { return anyValue(r, uint8(7)) }, `7`},
		{"any raw", func(r *Realm) goja.Value { return anyValue(r, json.RawMessage(`[1]`)) }, `[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.engine.lock.Lock()
			defer r.engine.lock.Unlock()
			var v goja.Value
			if err := r.try(func() { v = tt.in(r) }); err != nil {
				t.Fatal(err)
			}
			got := "undefined"
			if !goja.IsUndefined(v) {
				b, err := r.toJSON(v, "v")
				if err != nil {
					t.Fatal(err)
				}
				got = string(b)
			}
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	// Values JSON cannot carry but JS can.
	r.engine.lock.Lock()
	nan := anyValue(r, math.NaN())
	inf := anyValue(r, math.Inf(-1))
	r.engine.lock.Unlock()
	if !goja.IsNaN(nan) || !goja.IsInfinity(inf) {
		t.Errorf("NaN/-Inf: got %v %v", nan, inf)
	}

	errs := []struct {
		name string
		in   func(r *Realm) goja.Value
		want string
	}{
		{"int64 beyond 2^53", func(r *Realm) goja.Value { return anyValue(r, int64(1)<<60) }, "integer 1152921504606846976 is outside ±2^53"},
		{"uint64 beyond 2^53", func(r *Realm) goja.Value { return anyValue(r, uint64(math.MaxUint64)) }, "integer 18446744073709551615 is outside ±2^53"},
		{"channel", func(r *Realm) goja.Value { return anyValue(r, make(chan int)) }, "converting chan int to JavaScript"},
		{"invalid json", func(r *Realm) goja.Value { return FromJSON(r, json.RawMessage(`{"a":`)) }, "decoding JSON"},
		{"trailing json", func(r *Realm) goja.Value { return FromJSON(r, json.RawMessage(`1 2`)) }, "data after the top-level value"},
		{"deep json", func(r *Realm) goja.Value {
			return FromJSON(r, json.RawMessage(strings.Repeat("[", 100)+strings.Repeat("]", 100)))
		}, "nested deeper than 64 levels"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			r.engine.lock.Lock()
			defer r.engine.lock.Unlock()
			err := r.try(func() { tt.in(r) })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestLimitsMaxBytes(t *testing.T) {
	l, _ := newTestSandbox(t, &Options{Limits: &Limits{MaxBytes: 16}})
	r := testRealm(t, l, "dyn-1")
	installProbes(r)
	// Refused before Go copies the string: UTF-8 has at least a byte per UTF-16 unit.
	for _, src := range []string{`arg("string", "x".repeat(17))`, `arg("string", "é".repeat(17))`} {
		if got, want := runJSON(r, src), "expected a string of at most 16 bytes, got at least 17 bytes"; !strings.Contains(got, want) {
			t.Errorf("%s: got %s, want %s", src, got, want)
		}
	}
	if got, want := runJSON(r, `arg("string", "é".repeat(9))`), "expected a string of at most 16 bytes, got 18 bytes"; !strings.Contains(got, want) {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := runJSON(r, `arg("json", ["x".repeat(20)])`), "expected JSON data of at most 16 bytes"; !strings.Contains(got, want) {
		t.Errorf("got %s, want %s", got, want)
	}
	_ = time.Second
}

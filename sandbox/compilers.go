package sandbox

import (
	"fmt"
	"strings"

	"github.com/dop251/goja"
)

// Mount code is measured before goja parses it (checkNesting), but eval and the Function
// constructors parse text the code builds at run time: eval('('.repeat(2e6) + …) would
// overflow the parser's Go stack just the same, a fatal error no recover catches. So every
// realm's eval and Function constructors (Function, AsyncFunction and GeneratorFunction,
// however they are reached; goja has no async generators) measure their text first.
//
// The price: eval is always indirect. goja treats a call as a direct eval only when the
// callee is its own intrinsic eval, so eval'd code sees the realm's global scope, never the
// caller's local variables. (For mount code that is one more thing it cannot reach.)

// functionCtors names the intrinsic constructors that are not globals, by the source of a
// function whose constructor each is. It is compiled once for every realm.
var functionCtors = goja.MustCompile("cordis-function-constructors.js",
	"[(async function () {}).constructor, (function* () {}).constructor]", true)

// guardCompilers installs the measuring eval and Function constructors in rt.
func guardCompilers(rt *goja.Runtime, lim Limits) {
	syntaxError := rt.Get("SyntaxError") // the realm's own, taken before mount code can replace it
	check := func(what, src string) {
		ne := checkNesting(src, lim.MaxNesting, lim.MaxNestingWork)
		if ne == nil {
			return
		}
		line, col := position(src, ne.off)
		e, err := rt.New(syntaxError, rt.ToValue(fmt.Sprintf("%s: line %d, column %d of the code it was given: %s (Limits.MaxNesting, Limits.MaxNestingWork); "+
			"flatten it: build deep data in a loop or parse it with JSON.parse, and split long expressions into statements", what, line, col, ne.msg)))
		if err != nil {
			panic(err)
		}
		panic(e)
	}
	global := rt.GlobalObject()
	if eval, ok := goja.AssertFunction(global.Get("eval")); ok {
		_ = global.Set("eval", func(call goja.FunctionCall) goja.Value {
			src := call.Argument(0)
			if !goja.IsString(src) {
				return src // eval returns what is not a string, as the intrinsic does
			}
			check("eval", src.String())
			v, err := eval(goja.Undefined(), src)
			if err != nil {
				panic(err)
			}
			return v
		})
	}
	fn, _ := global.Get("Function").(*goja.Object)
	ctors := []*goja.Object{fn}
	if v, err := rt.RunProgram(functionCtors); err == nil {
		list := v.(*goja.Object)
		for _, k := range []string{"0", "1"} {
			o, _ := list.Get(k).(*goja.Object)
			ctors = append(ctors, o)
		}
	}
	prefixes := []string{"function", "async function", "function*"}
	for i, ctor := range ctors {
		if ctor == nil {
			continue
		}
		w := guardCtor(rt, ctor, prefixes[i], check)
		if i == 0 {
			_ = global.Set("Function", w)
		}
	}
}

// guardCtor returns a constructor that builds the same source text as the intrinsic ctor
// (whose kind of function is prefix), measures it, and then calls ctor with the arguments
// already converted to strings — each argument's toString runs once, so the text measured
// is the text parsed. The wrapper takes ctor's place as its prototype's constructor.
func guardCtor(rt *goja.Runtime, ctor *goja.Object, prefix string, check func(what, src string)) *goja.Object {
	proto, _ := ctor.Get("prototype").(*goja.Object)
	name := "Function"
	if prefix != "function" {
		name = strings.NewReplacer("async function", "AsyncFunction", "function*", "GeneratorFunction").Replace(prefix)
	}
	w := rt.ToValue(func(call goja.ConstructorCall) *goja.Object {
		args := make([]goja.Value, len(call.Arguments))
		params := make([]string, 0, len(call.Arguments))
		for i, a := range call.Arguments {
			s := a.ToString()
			args[i] = s
			if i < len(call.Arguments)-1 {
				params = append(params, s.String())
			}
		}
		body := ""
		if n := len(args); n > 0 {
			body = args[n-1].String()
		}
		check(name, "("+prefix+" anonymous("+strings.Join(params, ",")+"\n) {\n"+body+"\n})")
		v, err := rt.New(ctor, args...)
		if err != nil {
			panic(err)
		}
		return v
	}).(*goja.Object)
	if proto != nil {
		_ = w.DefineDataProperty("prototype", proto, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
		_ = proto.DefineDataProperty("constructor", w, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	_ = w.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	return w
}

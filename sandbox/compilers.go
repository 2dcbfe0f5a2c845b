package sandbox

import (
	"fmt"
	"strings"

	"github.com/cordiskit/cordiskit/sandbox/internal/jslex"
	"github.com/dop251/goja"
)

// Mount code is measured before goja parses it (jslex.CheckNesting), but eval and the Function
// constructors parse text the code builds at run time: eval('('.repeat(2e6) + …) would
// overflow the parser's Go stack just the same, a fatal error no recover catches. So every
// realm's eval and Function constructors (Function, AsyncFunction and GeneratorFunction,
// however they are reached; goja has no async generators) measure their text first.
//
// The price: eval is always indirect. goja treats a call as a direct eval only when the
// callee is its own intrinsic eval, so eval'd code sees the realm's global scope, never the
// caller's local variables. (For mount code that is one more thing it cannot reach.)
//
// Each guard is installed when its constructor first becomes reachable, not with the
// realm: goja builds intrinsics on first use, and building them for every realm cost more
// than the rest of a mount. Function is reachable from the start (every function's
// constructor), so guardParser guards it; eval (and JSON.parse, see guardJSON) only
// through the global object, so the realm's sandboxGlobals guards each on the first read
// of its name (see installGlobals). AsyncFunction and GeneratorFunction are reachable
// only through a function of their kind, and source text makes each (see jslex.Reaches): an
// async function takes the word async, a generator a '*' — or, for AsyncFunction, the
// word arguments (the mount code's own wrapper, an async function, is arguments.callee in
// its body), which a \u escape can spell too. So each is guarded when mount code
// (Program.reach, before the body runs) or text handed to a guarded eval or constructor
// (check, before it is parsed) may reach it.

// compilerGuard is one realm's guarded eval and Function constructors. Lock held.
type compilerGuard struct {
	rt              *goja.Runtime
	lim             Limits
	function        *goja.Object // the guarded Function, the global and every function's constructor
	eval            goja.Value   // the guarded eval, made on the global's first read (see evalGuard)
	json            *goja.Object // JSON with its parse guarded, on the global's first read (see jsonGuard)
	async, generate bool         // whether the AsyncFunction and GeneratorFunction guards are in
}

// asyncFunction makes an async function, whose constructor is AsyncFunction.
var asyncFunction = goja.MustCompile("cordis-async-function.js", "(async function () {})", true)

// generatorFunction makes a generator function, whose constructor is GeneratorFunction.
var generatorFunction = goja.MustCompile("cordis-generator-function.js", "(function* () {})", true)

// guardCompilers guards the Function constructor of rt, whose global object is still the
// runtime's own: the guard takes its place as Function.prototype.constructor, and the
// realm's global object serves it as Function (see sandboxGlobals.builtin).
func guardCompilers(rt *goja.Runtime, lim Limits) *compilerGuard {
	g := &compilerGuard{rt: rt, lim: lim}
	if fn, ok := rt.GlobalObject().Get("Function").(*goja.Object); ok {
		g.function = g.guardCtor(fn, "function", "Function")
	}
	return g
}

// evalGuard returns the measuring eval, made around intrinsic (the engine's eval) on the
// first call; nil if intrinsic is not a function.
func (g *compilerGuard) evalGuard(intrinsic goja.Value) goja.Value {
	if g.eval != nil {
		return g.eval
	}
	eval, ok := goja.AssertFunction(intrinsic)
	if !ok {
		return nil
	}
	g.eval = g.rt.ToValue(func(call goja.FunctionCall) goja.Value {
		src := call.Argument(0)
		if !goja.IsString(src) {
			return src // eval returns what is not a string, as the intrinsic does
		}
		g.check("eval", src.String())
		v, err := eval(goja.Undefined(), src)
		if err != nil {
			panic(err)
		}
		return v
	})
	return g.eval
}

// jsonGuard returns the engine's JSON object with its parse measuring (guardJSON), guarded
// on the first call; nil if it is not an object.
func (g *compilerGuard) jsonGuard(intrinsic goja.Value) goja.Value {
	if g.json == nil {
		j, ok := intrinsic.(*goja.Object)
		if !ok {
			return nil
		}
		guardJSON(g.rt, j, g.lim.MaxNesting)
		g.json = j
	}
	return g.json
}

// guard guards the constructors in r before text that may reach them runs; fn, if not
// nil, is an async function of the realm (the mount code's wrapper) to find AsyncFunction
// by.
func (g *compilerGuard) guard(r jslex.Reach, fn goja.Value) {
	if g == nil {
		return
	}
	if r&jslex.ReachAsync != 0 && !g.async {
		g.async = true
		if fn == nil {
			fn, _ = g.rt.RunProgram(asyncFunction)
		}
		g.guardKind(fn, "async function", "AsyncFunction")
	}
	if r&jslex.ReachGenerator != 0 && !g.generate {
		g.generate = true
		fn, _ := g.rt.RunProgram(generatorFunction)
		g.guardKind(fn, "function*", "GeneratorFunction")
	}
}

// guardKind guards the constructor of fn, a function of the kind prefix names.
func (g *compilerGuard) guardKind(fn goja.Value, prefix, name string) {
	if o, ok := fn.(*goja.Object); ok && o.Prototype() != nil {
		if ctor, ok := o.Prototype().Get("constructor").(*goja.Object); ok {
			g.guardCtor(ctor, prefix, name)
		}
	}
}

// sawSource guards the constructors src may reach before it runs.
func (g *compilerGuard) sawSource(src string) { g.guard(jslex.Reaches(src), nil) }

// check throws a SyntaxError when src nests too deep; otherwise it lets src run (guarding
// what src may reach). what names the caller ("eval", "Function").
func (g *compilerGuard) check(what, src string) {
	ne := jslex.CheckNesting(src, g.lim.MaxNesting, g.lim.MaxNestingWork)
	if ne == nil {
		g.sawSource(src)
		return
	}
	line, col := jslex.Position(src, ne.Off)
	msg := fmt.Sprintf("%s: line %d, column %d of the code it was given: %s (Limits.MaxNesting, Limits.MaxNestingWork); "+
		"flatten it: build deep data in a loop or parse it with JSON.parse, and split long expressions into statements", what, line, col, ne.Msg)
	// The realm's SyntaxError, read only now (most realms never need it); if mount code
	// replaced it with something that is not a constructor, a TypeError carries the message.
	if ctor, ok := g.rt.Get("SyntaxError").(*goja.Object); ok {
		if e, err := g.rt.New(ctor, g.rt.ToValue(msg)); err == nil {
			panic(e)
		}
	}
	panic(g.rt.NewTypeError(msg))
}

// guardCtor returns a constructor that builds the same source text as the intrinsic ctor
// (whose kind of function is prefix), measures it, and then calls ctor with the arguments
// already converted to strings — each argument's toString runs once, so the text measured
// is the text parsed. The wrapper takes ctor's place as its prototype's constructor.
func (g *compilerGuard) guardCtor(ctor *goja.Object, prefix, name string) *goja.Object {
	rt := g.rt
	proto, _ := ctor.Get("prototype").(*goja.Object)
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
		g.check(name, "("+prefix+" anonymous("+strings.Join(params, ",")+"\n) {\n"+body+"\n})")
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

package emit

import (
	"fmt"
	"strconv"

	"github.com/cordiskit/cordiskit/catalog"
)

// seams writes, for each interface service, what lets a mount implement it in JavaScript:
// a Go type implementing the interface by calling the mount's object through a
// *bind.Seam, and the *bind.SeamAdapter that ctx.provide checks the object against.
// It returns the entries of the Facade's Seams map and the declarations.
func (w *facadeWriter) seams(c *catalog.Catalog) (entries []kv, decls []string) {
	for i := range c.Services {
		s := &c.Services[i]
		if !s.Abstract {
			continue
		}
		name := "cordisSeam" + camel(s.Key)
		entries = append(entries, field(lit(s.Key), name))
		decls = append(decls, w.seam(name, s)...)
	}
	return entries, decls
}

// seam writes the adapter var name, the implementation type name+"Impl" with its methods,
// and name+"Rest", which the type embeds so that it compiles when the interface has
// methods the catalog leaves out (bind.NewSeamAdapter refuses those interfaces at
// provide time, so the embedded nil interface is never called).
func (w *facadeWriter) seam(name string, s *catalog.Service) []string {
	iface := w.goType(s.Type)
	impl, rest := name+"Impl", name+"Rest"
	var methods []string
	for _, m := range s.Methods {
		methods = append(methods, compact(field("Go", lit(m.Name)), field("JS", lit(m.JSName)), field("Signature", lit(m.Signature))))
	}
	adapter := call(w.bind("NewSeamAdapter")+"["+iface+"]",
		valueLines("[]"+w.bind("SeamMethod"), methods),
		funcLit(signature("", []string{"s *" + w.bind("Seam")}, []string{iface}), "return &"+impl+"{seam: s}"))
	decls := []string{
		fmt.Sprintf("// %s lets a mount implement service %q (%s) in JavaScript: ctx.provide(%q, obj)\n", name, s.Key, s.TypeName, s.Key) +
			"// checks obj against the interface, and Go code gets a " + impl + " calling it.\n" +
			"var " + name + " = " + top(adapter),
		fmt.Sprintf("// %s is the %s a JavaScript implementation of %q stands behind.\n", impl, s.TypeName, s.Key) +
			"type " + impl + " struct {\n\t" + rest + "\n\tseam *" + w.bind("Seam") + "\n}",
		fmt.Sprintf("// %s supplies the methods of %s the catalog leaves out, which JavaScript cannot\n", rest, s.TypeName) +
			"// implement: " + name + " refuses such an interface, so they are never called.\n" +
			"type " + rest + " struct {\n\t" + iface + "\n}",
	}
	for i := range s.Methods {
		decls = append(decls, w.seamMethod(impl, s.Key, i, &s.Methods[i]))
	}
	return decls
}

// seamMethod writes method number i of the implementation type: one bind call with the
// Go arguments converted to JavaScript, the call through the Seam (bounded; ctx cancels
// it), and the conversion of the result back with the method's path in errors. A method
// without an error result reports a failed call (Seam.Fail) and returns its zero values
// (a disposer that does nothing): bind.Tell and its siblings; one with an error result
// returns it: bind.Ask.
func (w *facadeWriter) seamMethod(impl, key string, i int, m *catalog.Method) string {
	method := key + "." + m.JSName
	var params, jsArgs []string
	ctx := call(w.q("context", "Background"))
	for j, p := range m.Params {
		a := fmt.Sprintf("arg%d", j) // not p%d: a declaring package may be named p0
		switch p.Role {
		case catalog.RoleContext:
			params = append(params, "ctx "+w.goType(p.Go))
			ctx = "ctx"
		case catalog.RoleKit:
			params = append(params, "_ "+w.goType(p.Go))
		default:
			params = append(params, a+" "+w.goType(p.Go))
			jsArgs = append(jsArgs, w.seamArg(method, p, a))
		}
	}

	vals, hasErr := splitError(m.Results)
	var results []string
	for _, v := range vals {
		results = append(results, w.goType(v.Go))
	}
	if hasErr {
		results = append(results, "error")
	}

	args := "nil"
	if len(jsArgs) > 0 {
		args = shortFunc(signature("", []string{w.realmParam()}, []string{w.gojaValues()}), "return "+values(w.gojaValues(), jsArgs...))
	}
	index, path := strconv.Itoa(i), lit(method+"(…)")
	tell := func(fn string, rest ...string) string {
		return "return " + call(w.bind(fn), append([]string{ctx, "x.seam", index, args}, rest...)...)
	}
	var body string
	switch {
	case len(vals) == 0 && hasErr:
		body = "return " + call("x.seam.Call", ctx, index, args, "nil")
	case len(vals) == 0:
		body = call(w.bind("Notify"), ctx, "x.seam", index, args)
	case vals[0].Go.Kind == catalog.KindFunc && !hasErr:
		body = tell("TellDisposer", path)
	default:
		from := "x.seam.Disposer"
		if vals[0].Go.Kind != catalog.KindFunc {
			from = w.fromFunc(vals[0].Go)
		}
		fn := map[[2]bool]string{{false, false}: "Tell", {false, true}: "Ask", {true, false}: "TellFound", {true, true}: "AskFound"}[[2]bool{len(vals) == 2, hasErr}]
		body = tell(fn, from, path)
	}
	return fmt.Sprintf("// %s calls %s of the JavaScript implementation.\n", m.Name, m.JSName) +
		funcLit(signature(" (x *"+impl+") "+m.Name, params, results), body)
}

// seamArg converts Go argument a of parameter p to JavaScript: a callback becomes a
// JavaScript function (see jsFunc).
func (w *facadeWriter) seamArg(method string, p catalog.Param, a string) string {
	if p.Go.Kind != catalog.KindFunc {
		return w.toJS(p.Go, a, method)
	}
	name := w.helper("JS", p.Go, func(name string) string { return w.jsFunc(name, p.Go) })
	return call(name, "r", lit(method+" "+p.JSName), a)
}

// jsFunc declares the helper that exposes a Go callback of type gt to JavaScript: a
// function, named name in errors, that converts its arguments back and calls the Go func
// off the lock; null for a nil func.
func (w *facadeWriter) jsFunc(name string, gt *catalog.GoType) string {
	var xs, stmts []string
	for k, pt := range gt.Params {
		x := fmt.Sprintf("x%d", k)
		path := binary("+", "name", lit(fmt.Sprintf("(…) argument %d", k)))
		stmts = append(stmts, x+" := "+w.fromJS(pt, "call.Argument("+strconv.Itoa(k)+")", path))
		xs = append(xs, x)
	}
	stmts = append(stmts,
		call("r.Unlocked", funcLit("func()", call("fn", xs...))),
		"return "+call(w.q(GojaPath, "Undefined")))
	callback := funcLit(signature("", []string{"call " + w.q(GojaPath, "FunctionCall")}, []string{w.gojaValue()}), stmts...)
	return funcLit(signature(" "+name, []string{w.realmParam(), "name string", "fn " + w.goType(gt)}, []string{w.gojaValue()}),
		ifBlock("fn == nil", "return "+call(w.q(GojaPath, "Null"))),
		"return "+call("r.Func", "name", callback))
}

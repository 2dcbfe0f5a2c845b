package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/cordiskit/cordiskit/catalog"
)

// seams writes, for each interface service, what lets a mount implement it in JavaScript:
// a Go type implementing the interface by calling the mount's object through a
// *sandbox.Seam, and the *sandbox.SeamAdapter that ctx.provide checks the object against.
// It returns the entries of the Facade's Seams map and the declarations.
func (w *facadeWriter) seams(c *catalog.Catalog) (entries, decls []jen.Code) {
	for i := range c.Services {
		s := &c.Services[i]
		if !s.Abstract {
			continue
		}
		name := "cordisSeam" + camel(s.Key)
		entries = append(entries, jen.Lit(s.Key).Op(":").Id(name))
		decls = append(decls, w.seam(name, s)...)
	}
	return entries, decls
}

// seam writes the adapter var name, the implementation type name+"Impl" with its methods,
// and name+"Rest", which the type embeds so that it compiles when the interface has
// methods the catalog leaves out (sandbox.NewSeamAdapter refuses those interfaces at
// provide time, so the embedded nil interface is never called).
func (w *facadeWriter) seam(name string, s *catalog.Service) []jen.Code {
	iface := GoTypeCode(s.Type)
	impl, rest := name+"Impl", name+"Rest"
	var methods []jen.Code
	for _, m := range s.Methods {
		methods = append(methods, jen.Values(jen.Dict{
			jen.Id("Go"): jen.Lit(m.Name), jen.Id("JS"): jen.Lit(m.JSName), jen.Id("Signature"): jen.Lit(m.Signature),
		}))
	}
	multi := jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
	decls := []jen.Code{
		jen.Comment(fmt.Sprintf("%s lets a mount implement service %q (%s) in JavaScript: ctx.provide(%q, obj)", name, s.Key, s.TypeName, s.Key)).Line().
			Comment("checks obj against the interface, and Go code gets a "+impl+" calling it.").Line().
			Var().Id(name).Op("=").Qual(SandboxPath, "NewSeamAdapter").Types(iface.Clone()).Call(
			jen.Index().Qual(SandboxPath, "SeamMethod").Custom(multi, methods...),
			jen.Func().Params(jen.Id("s").Op("*").Qual(SandboxPath, "Seam")).Add(iface.Clone()).Block(
				jen.Return(jen.Op("&").Id(impl).Values(jen.Dict{jen.Id("seam"): jen.Id("s")})))),
		jen.Comment(fmt.Sprintf("%s is the %s a JavaScript implementation of %q stands behind.", impl, s.TypeName, s.Key)).Line().
			Type().Id(impl).Struct(jen.Id(rest), jen.Id("seam").Op("*").Qual(SandboxPath, "Seam")),
		jen.Comment(fmt.Sprintf("%s supplies the methods of %s the catalog leaves out, which JavaScript cannot", rest, s.TypeName)).Line().
			Comment("implement: " + name + " refuses such an interface, so they are never called.").Line().
			Type().Id(rest).Struct(iface.Clone()),
	}
	for i := range s.Methods {
		decls = append(decls, w.seamMethod(impl, s.Key, i, &s.Methods[i]))
	}
	return decls
}

// seamMethod writes method number i of the implementation type: the Go arguments converted
// to JavaScript, the call through the Seam (bounded; ctx cancels it), the result converted
// back with the method's path in errors. A method without an error result reports a failed
// call (Seam.Fail) and returns its zero values (a disposer that does nothing).
func (w *facadeWriter) seamMethod(impl, key string, i int, m *catalog.Method) jen.Code {
	method := key + "." + m.JSName
	var params, jsArgs []jen.Code
	ctx := jen.Qual("context", "Background").Call()
	for j, p := range m.Params {
		a := jen.Id(fmt.Sprintf("arg%d", j)) // not p%d: a declaring package may be named p0
		switch p.Role {
		case catalog.RoleContext:
			params = append(params, jen.Id("ctx").Add(GoTypeCode(p.Go)))
			ctx = jen.Id("ctx")
		case catalog.RoleKit:
			params = append(params, jen.Id("_").Add(GoTypeCode(p.Go)))
		default:
			params = append(params, jen.Add(a).Add(GoTypeCode(p.Go)))
			jsArgs = append(jsArgs, w.seamArg(method, p, a))
		}
	}

	vals := m.Results
	hasErr := len(vals) > 0 && vals[len(vals)-1].Go.Kind == catalog.KindBasic && vals[len(vals)-1].Go.Name == "error"
	if hasErr {
		vals = vals[:len(vals)-1]
	}
	var results, decls, rets []jen.Code
	for j, v := range vals {
		results = append(results, GoTypeCode(v.Go))
		decls = append(decls, jen.Id(fmt.Sprintf("res%d", j)).Add(GoTypeCode(v.Go)))
		rets = append(rets, jen.Id(fmt.Sprintf("res%d", j)))
	}
	if hasErr {
		results = append(results, jen.Error())
	}

	var args jen.Code = jen.Nil()
	if len(jsArgs) > 0 {
		args = jen.Func().Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm")).Index().Qual(GojaPath, "Value").Block(
			jen.Return(jen.Index().Qual(GojaPath, "Value").Values(jsArgs...)))
	}
	var conv jen.Code = jen.Nil()
	if len(vals) > 0 {
		conv = jen.Func().Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("v").Qual(GojaPath, "Value")).Error().Block(
			w.seamResult(method, vals)...)
	}
	call := jen.Id("x").Dot("seam").Dot("Call").Call(ctx, jen.Lit(i), args, conv)

	var body []jen.Code
	switch len(decls) {
	case 0:
	case 1:
		body = append(body, jen.Var().Add(decls[0]))
	default:
		body = append(body, jen.Var().Defs(decls...))
	}
	switch {
	case hasErr && len(vals) == 0:
		body = append(body, jen.Return(call))
	case hasErr:
		body = append(body,
			jen.Err().Op(":=").Add(call),
			jen.Return(append(rets, jen.Err())...))
	default:
		// The results are still their zero values: conv assigns them only once the whole
		// result has converted.
		failed := []jen.Code{jen.Id("x").Dot("seam").Dot("Fail").Call(jen.Lit(i), jen.Err())}
		if len(vals) > 0 && vals[0].Go.Kind == catalog.KindFunc {
			failed = append(failed, jen.Id("res0").Op("=").Func().Params().Block()) // Go never calls a nil disposer
		}
		body = append(body, jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(failed...))
		body = append(body, jen.Return(rets...))
	}
	return jen.Comment(fmt.Sprintf("%s calls %s of the JavaScript implementation.", m.Name, m.JSName)).Line().
		Func().Params(jen.Id("x").Op("*").Id(impl)).Id(m.Name).Params(params...).Params(results...).Block(body...)
}

// seamArg converts Go argument a of parameter p to JavaScript: a callback becomes a
// JavaScript function that converts its arguments back and calls the Go func off the lock.
func (w *facadeWriter) seamArg(method string, p catalog.Param, a jen.Code) jen.Code {
	if p.Go.Kind != catalog.KindFunc {
		return w.toJS(p.Go, a, method)
	}
	name := method + " " + p.JSName
	var xs, stmts []jen.Code
	for k, pt := range p.Go.Params {
		x := jen.Id(fmt.Sprintf("x%d", k))
		path := jen.Lit(fmt.Sprintf("%s(…) argument %d", name, k))
		stmts = append(stmts, jen.Add(x).Op(":=").Add(w.fromJS(pt, jen.Id("call").Dot("Argument").Call(jen.Lit(k)), path)))
		xs = append(xs, x)
	}
	stmts = append(stmts,
		jen.Id("r").Dot("Unlocked").Call(jen.Func().Params().Block(jen.Add(a).Call(xs...))),
		jen.Return(undefined()))
	return jen.Func().Params().Qual(GojaPath, "Value").Block(
		jen.If(jen.Add(a).Op("==").Nil()).Block(jen.Return(jen.Qual(GojaPath, "Null").Call())),
		jen.Return(jen.Id("r").Dot("Func").Call(jen.Lit(name), jen.Func().Params(jen.Id("call").Qual(GojaPath, "FunctionCall")).Qual(GojaPath, "Value").Block(stmts...))),
	).Call()
}

// seamResult converts the JavaScript result v into res0 (and res1, a found flag): what
// does not fit throws a TypeError naming the path "key.method(…)", which becomes the
// call's error.
func (w *facadeWriter) seamResult(method string, vals []catalog.Param) []jen.Code {
	path := jen.Lit(method + "(…)")
	var conv jen.Code
	if vals[0].Go.Kind == catalog.KindFunc {
		conv = jen.Id("x").Dot("seam").Dot("Disposer").Call(jen.Id("r"), jen.Id("v"), path)
	} else {
		conv = w.fromJS(vals[0].Go, jen.Id("v"), path)
	}
	if len(vals) == 2 { // (T, bool): undefined or null is not found
		w.absentHelper()
		return []jen.Code{
			jen.If(jen.Id("cordisIsAbsent").Call(jen.Id("v"))).Block(jen.Return(jen.Nil())),
			jen.List(jen.Id("res0"), jen.Id("res1")).Op("=").List(conv, jen.True()),
			jen.Return(jen.Nil()),
		}
	}
	return []jen.Code{jen.Id("res0").Op("=").Add(conv), jen.Return(jen.Nil())}
}

// seamsField is the Facade's Seams field, left out when there is no interface service.
func seamsField(entries []jen.Code) jen.Code {
	if len(entries) == 0 {
		return jen.Null()
	}
	multi := jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
	return jen.Id("Seams").Op(":").Map(jen.String()).Op("*").Qual(SandboxPath, "SeamAdapter").Custom(multi, entries...)
}

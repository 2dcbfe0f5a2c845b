package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/cordiskit/cordiskit/catalog"
)

// seams writes, for each interface service, what lets a mount implement it in JavaScript:
// a Go type implementing the interface by calling the mount's object through a
// *bind.Seam, and the *bind.SeamAdapter that ctx.provide checks the object against.
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
// methods the catalog leaves out (bind.NewSeamAdapter refuses those interfaces at
// provide time, so the embedded nil interface is never called).
func (w *facadeWriter) seam(name string, s *catalog.Service) []jen.Code {
	iface := GoTypeCode(s.Type)
	impl, rest := name+"Impl", name+"Rest"
	var methods []jen.Code
	for _, m := range s.Methods {
		methods = append(methods, jen.Values( // one line a method
			jen.Id("Go").Op(":").Lit(m.Name), jen.Id("JS").Op(":").Lit(m.JSName), jen.Id("Signature").Op(":").Lit(m.Signature)))
	}
	multi := jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
	decls := []jen.Code{
		jen.Comment(fmt.Sprintf("%s lets a mount implement service %q (%s) in JavaScript: ctx.provide(%q, obj)", name, s.Key, s.TypeName, s.Key)).Line().
			Comment("checks obj against the interface, and Go code gets a "+impl+" calling it.").Line().
			Var().Id(name).Op("=").Qual(BindPath, "NewSeamAdapter").Types(iface.Clone()).Call(
			jen.Index().Qual(BindPath, "SeamMethod").Custom(multi, methods...),
			jen.Func().Params(jen.Id("s").Op("*").Qual(BindPath, "Seam")).Add(iface.Clone()).Block(
				jen.Return(jen.Op("&").Id(impl).Values(jen.Dict{jen.Id("seam"): jen.Id("s")})))),
		jen.Comment(fmt.Sprintf("%s is the %s a JavaScript implementation of %q stands behind.", impl, s.TypeName, s.Key)).Line().
			Type().Id(impl).Struct(jen.Id(rest), jen.Id("seam").Op("*").Qual(BindPath, "Seam")),
		jen.Comment(fmt.Sprintf("%s supplies the methods of %s the catalog leaves out, which JavaScript cannot", rest, s.TypeName)).Line().
			Comment("implement: " + name + " refuses such an interface, so they are never called.").Line().
			Type().Id(rest).Struct(iface.Clone()),
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
	var results []jen.Code
	for _, v := range vals {
		results = append(results, GoTypeCode(v.Go))
	}
	if hasErr {
		results = append(results, jen.Error())
	}

	var args jen.Code = jen.Nil()
	if len(jsArgs) > 0 {
		args = jen.Func().Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm")).Index().Qual(GojaPath, "Value").Custom(jen.Options{Open: "{ ", Close: " }"},
			jen.Return(jen.Index().Qual(GojaPath, "Value").Values(jsArgs...)))
	}
	seam, path := jen.Id("x").Dot("seam"), jen.Lit(method+"(…)")
	call := func(fn string, rest ...jen.Code) jen.Code {
		return jen.Return(jen.Qual(BindPath, fn).Call(append([]jen.Code{ctx, seam, jen.Lit(i), args}, rest...)...))
	}
	var body jen.Code
	switch {
	case len(vals) == 0 && hasErr:
		body = jen.Return(seam.Clone().Dot("Call").Call(ctx, jen.Lit(i), args, jen.Nil()))
	case len(vals) == 0:
		body = jen.Qual(BindPath, "Notify").Call(ctx, seam, jen.Lit(i), args)
	case vals[0].Go.Kind == catalog.KindFunc && !hasErr:
		body = call("TellDisposer", path)
	default:
		var from jen.Code = seam.Clone().Dot("Disposer")
		if vals[0].Go.Kind != catalog.KindFunc {
			from = w.fromFunc(vals[0].Go)
		}
		fn := map[[2]bool]string{{false, false}: "Tell", {false, true}: "Ask", {true, false}: "TellFound", {true, true}: "AskFound"}[[2]bool{len(vals) == 2, hasErr}]
		body = call(fn, from, path)
	}
	return jen.Comment(fmt.Sprintf("%s calls %s of the JavaScript implementation.", m.Name, m.JSName)).Line().
		Func().Params(jen.Id("x").Op("*").Id(impl)).Id(m.Name).Params(params...).Params(results...).Block(body)
}

// seamArg converts Go argument a of parameter p to JavaScript: a callback becomes a
// JavaScript function (see jsFunc).
func (w *facadeWriter) seamArg(method string, p catalog.Param, a jen.Code) jen.Code {
	if p.Go.Kind != catalog.KindFunc {
		return w.toJS(p.Go, a, method)
	}
	name := w.helper("JS", p.Go, func(name string) jen.Code { return w.jsFunc(name, p.Go) })
	return jen.Id(name).Call(idR, jen.Lit(method+" "+p.JSName), a)
}

// jsFunc declares the helper that exposes a Go callback of type gt to JavaScript: a
// function, named name in errors, that converts its arguments back and calls the Go func
// off the lock; null for a nil func.
func (w *facadeWriter) jsFunc(name string, gt *catalog.GoType) jen.Code {
	var xs, stmts []jen.Code
	for k, pt := range gt.Params {
		x := jen.Id(fmt.Sprintf("x%d", k))
		path := jen.Id("name").Op("+").Lit(fmt.Sprintf("(…) argument %d", k))
		stmts = append(stmts, jen.Add(x).Op(":=").Add(w.fromJS(pt, jen.Id("call").Dot("Argument").Call(jen.Lit(k)), path)))
		xs = append(xs, x)
	}
	stmts = append(stmts,
		jen.Id("r").Dot("Unlocked").Call(jen.Func().Params().Block(jen.Id("fn").Call(xs...))),
		jen.Return(undefined()))
	return jen.Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("name").String(), jen.Id("fn").Add(GoTypeCode(gt))).Qual(GojaPath, "Value").Block(
		jen.If(jen.Id("fn").Op("==").Nil()).Block(jen.Return(jen.Qual(GojaPath, "Null").Call())),
		jen.Return(jen.Id("r").Dot("Func").Call(jen.Id("name"), jen.Func().Params(jen.Id("call").Qual(GojaPath, "FunctionCall")).Qual(GojaPath, "Value").Block(stmts...))),
	)
}

// seamsField is the Facade's Seams field, left out when there is no interface service.
func seamsField(entries []jen.Code) jen.Code {
	if len(entries) == 0 {
		return jen.Null()
	}
	multi := jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
	return jen.Id("Seams").Op(":").Map(jen.String()).Op("*").Qual(BindPath, "SeamAdapter").Custom(multi, entries...)
}

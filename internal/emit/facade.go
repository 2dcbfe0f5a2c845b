package emit

import (
	"fmt"
	"maps"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/cordiskit/cordiskit/catalog"
)

// Import paths the façade names.
const (
	SandboxPath = "github.com/cordiskit/cordiskit/sandbox"
	GojaPath    = "github.com/dop251/goja"
)

// FacadeGo renders facade_gen.go: the sandbox whitelist as code, following the binding
// contract of package sandbox. For each service, a binder that builds a JavaScript object
// holding only the service's catalogued methods, with typed argument and result
// conversion; for each event, an adapter that subscribes a JavaScript function as a typed
// Go listener and turns each payload into positional arguments; and
//
//	var Facade = &sandbox.Facade{Services: …, Events: …}
//
// Go values cross only as plain data built field by field or as these bindings: nothing
// is handed to goja by reflection, so no other Go method is reachable.
func FacadeGo(c *catalog.Catalog, pkg, header string) ([]byte, error) {
	w := &facadeWriter{cat: c, helpers: map[string]jen.Code{}, byKey: map[string]string{}}
	var binders, adapters []jen.Code
	var funcs []jen.Code
	for _, s := range c.Services {
		name := "cordisBind" + camel(s.Key)
		binders = append(binders, jen.Lit(s.Key).Op(":").Id(name))
		funcs = append(funcs, w.binder(name, &s))
	}
	for _, e := range c.Events {
		name := "cordisOn" + camel(e.Name)
		adapters = append(adapters, jen.Lit(e.Name).Op(":").Id(name))
		funcs = append(funcs, w.adapter(name, &e))
	}
	seams, seamDecls := w.seams(c)
	funcs = append(funcs, seamDecls...)
	multi := jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
	decls := []jen.Code{jen.Comment("Facade is the sandbox whitelist of these declarations: a binder per service and an").Line().
		Comment("adapter per event. Nothing else in Go is reachable from JavaScript through it.").Line().
		Var().Id("Facade").Op("=").Op("&").Qual(SandboxPath, "Facade").Custom(multi,
		jen.Id("Services").Op(":").Map(jen.String()).Qual(SandboxPath, "ServiceBinder").Custom(multi, binders...),
		jen.Id("Events").Op(":").Map(jen.String()).Qual(SandboxPath, "EventAdapter").Custom(multi, adapters...),
		seamsField(seams),
	)}
	decls = append(decls, funcs...)
	for _, name := range slices.Sorted(maps.Keys(w.helpers)) {
		decls = append(decls, w.helpers[name])
	}
	out, err := renderFile(&goFile{pkg: pkg, header: header, decls: decls,
		names: map[string]string{SandboxPath: "sandbox", GojaPath: "goja", KitPath: "kit"}})
	if err != nil {
		return nil, fmt.Errorf("facade: %w", err)
	}
	return out, nil
}

// A facadeWriter collects the conversion helpers the bindings use, one per Go type.
type facadeWriter struct {
	cat     *catalog.Catalog
	helpers map[string]jen.Code // function name → declaration
	byKey   map[string]string   // direction + GoType.String() → function name
}

// idR is the realm every generated function has in scope.
var idR = jen.Id("r")

func undefined() *jen.Statement { return jen.Qual(GojaPath, "Undefined").Call() }

func runtimeCall() *jen.Statement { return jen.Id("r").Dot("Runtime").Call() }

// binder writes the ServiceBinder of one service.
func (w *facadeWriter) binder(name string, s *catalog.Service) jen.Code {
	typ := GoTypeCode(s.Type)
	body := []jen.Code{
		jen.List(jen.Id("s"), jen.Id("ok")).Op(":=").Id("v").Assert(typ),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(
			jen.Lit("service %q holds a %T, but its binding expects a "+s.Type.String()), jen.Lit(s.Key), jen.Id("v")))),
		jen.Id("o").Op(":=").Add(runtimeCall()).Dot("NewObject").Call(),
	}
	for _, m := range s.Methods {
		method := s.Key + "." + m.JSName
		body = append(body, jen.If(jen.Err().Op(":=").Id("o").Dot("Set").Call(jen.Lit(m.JSName),
			jen.Id("r").Dot("Func").Call(jen.Lit(method), jen.Func().Params(jen.Id("call").Qual(GojaPath, "FunctionCall")).Qual(GojaPath, "Value").Block(
				w.methodBody(method, &m)...,
			)))).Op(";").Err().Op("!=").Nil().Block(jen.Return(jen.Nil(), jen.Err())))
	}
	body = append(body, jen.Return(jen.Id("o"), jen.Nil()))
	return jen.Comment(fmt.Sprintf("%s binds service %q (%s): only its catalogued methods.", name, s.Key, s.TypeName)).Line().
		Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("v").Any()).
		Params(jen.Op("*").Qual(GojaPath, "Object"), jen.Error()).Block(body...)
}

// methodBody converts the arguments, calls the method (off the lock: Unlocked for a sync
// method, Async for one taking a context) and converts its result.
func (w *facadeWriter) methodBody(method string, m *catalog.Method) []jen.Code {
	var stmts []jen.Code
	var args []jen.Code
	js := 0
	for i, p := range m.Params {
		switch p.Role {
		case catalog.RoleContext:
			args = append(args, jen.Id("ctx"))
		case catalog.RoleKit:
			args = append(args, jen.Id("r").Dot("Context").Call())
		default:
			a := jen.Id(fmt.Sprintf("a%d", i))
			stmts = append(stmts, w.argument(a, method, p, js)...)
			args = append(args, a)
			js++
		}
	}
	call := jen.Id("s").Dot(m.Name).Call(args...)

	// The results: the values JavaScript gets (before an optional error), and whether the
	// second is a found flag.
	vals := m.Results
	hasErr := len(vals) > 0 && vals[len(vals)-1].Go.Kind == catalog.KindBasic && vals[len(vals)-1].Go.Name == "error"
	if hasErr {
		vals = vals[:len(vals)-1]
	}
	var lhs []jen.Code
	for i := range vals {
		lhs = append(lhs, jen.Id(fmt.Sprintf("res%d", i)))
	}
	if hasErr {
		lhs = append(lhs, jen.Err())
	}
	var result jen.Code = undefined()
	if len(vals) > 0 {
		result = w.toJS(vals[0].Go, jen.Id("res0"), method)
	}
	found := len(vals) == 2 // (T, bool): undefined when not found

	if m.Async {
		var inner []jen.Code
		if len(lhs) > 0 {
			inner = append(inner, jen.List(lhs...).Op(":=").Add(call))
		} else {
			inner = append(inner, call)
		}
		if hasErr {
			inner = append(inner, jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		}
		if found {
			inner = append(inner, jen.If(jen.Op("!").Id("res1")).Block(jen.Return(jen.Nil(), jen.Nil())))
		}
		if len(vals) > 0 {
			inner = append(inner, jen.Return(jen.Func().Params().Qual(GojaPath, "Value").Block(jen.Return(result)), jen.Nil()))
		} else {
			inner = append(inner, jen.Return(jen.Nil(), jen.Nil()))
		}
		return append(stmts, jen.Return(jen.Id("r").Dot("Async").Call(
			jen.Func().Params(jen.Id("ctx").Qual("context", "Context")).Params(jen.Func().Params().Qual(GojaPath, "Value"), jen.Error()).Block(inner...))))
	}

	if len(lhs) > 0 {
		var decls []jen.Code
		for i, v := range vals {
			decls = append(decls, jen.Id(fmt.Sprintf("res%d", i)).Add(GoTypeCode(v.Go)))
		}
		if hasErr {
			decls = append(decls, jen.Err().Error())
		}
		stmts = append(stmts, jen.Var().Defs(decls...))
		stmts = append(stmts, jen.Id("r").Dot("Unlocked").Call(jen.Func().Params().Block(jen.List(lhs...).Op("=").Add(call))))
	} else {
		stmts = append(stmts, jen.Id("r").Dot("Unlocked").Call(jen.Func().Params().Block(call)))
	}
	if hasErr {
		stmts = append(stmts, jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("r").Dot("Throw").Call(jen.Err())))
	}
	if found {
		stmts = append(stmts, jen.If(jen.Op("!").Id("res1")).Block(jen.Return(undefined())))
	}
	return append(stmts, jen.Return(result))
}

// argument declares a := the JS-visible parameter number js, converted.
func (w *facadeWriter) argument(a jen.Code, method string, p catalog.Param, js int) []jen.Code {
	if p.Go.Kind == catalog.KindFunc {
		return w.callbackArg(a, method, p, js)
	}
	if fn, native := argFunc(w.plainBasic(p.Go)); fn != "" {
		args := []jen.Code{idR, jen.Id("call"), jen.Lit(js), jen.Lit(method), jen.Lit(p.JSName)}
		return []jen.Code{jen.Add(a).Op(":=").Add(w.readBasic(p.Go, fn, native, args, jen.Lit(method), jen.Lit(p.JSName)))}
	}
	path := jen.Lit(method + ": parameter " + p.JSName)
	return []jen.Code{jen.Add(a).Op(":=").Add(w.fromJS(p.Go, jen.Id("call").Dot("Argument").Call(jen.Lit(js)), path))}
}

// callbackArg wraps a JavaScript function as the Go callback a parameter expects: each
// call is delivered with emit semantics (Realm.DeliverEmit: its result and promise
// ignored, a failure reported).
func (w *facadeWriter) callbackArg(a jen.Code, method string, p catalog.Param, js int) []jen.Code {
	cb := jen.Id(fmt.Sprintf("cb%d", js))
	var params, vals []jen.Code
	for i, pt := range p.Go.Params {
		x := jen.Id(fmt.Sprintf("x%d", i))
		params = append(params, jen.Add(x).Add(GoTypeCode(pt)))
		vals = append(vals, w.toJS(pt, x, method))
	}
	return []jen.Code{
		jen.Add(cb).Op(":=").Qual(SandboxPath, "ArgCallback").Call(idR, jen.Id("call"), jen.Lit(js), jen.Lit(method), jen.Lit(p.JSName)),
		jen.Add(a).Op(":=").Func().Params(params...).Block(
			jen.Id("r").Dot("DeliverEmit").Call(jen.Lit("the "+p.JSName+" callback of "+method), cb,
				jen.Func().Params().Index().Qual(GojaPath, "Value").Block(jen.Return(jen.Index().Qual(GojaPath, "Value").Values(vals...)))),
		),
	}
}

// adapter writes the EventAdapter of one event, by dispatch mode.
func (w *facadeWriter) adapter(name string, e *catalog.Event) jen.Code {
	p := jen.Id("p")
	payload := GoTypeCode(e.Payload)
	var vals []jen.Code
	for _, f := range e.Params {
		vals = append(vals, w.toJS(f.Go, jen.Id("p").Dot(f.Name), e.Name))
	}
	args := func(extra ...jen.Code) jen.Code {
		return jen.Func().Params().Index().Qual(GojaPath, "Value").Block(
			jen.Return(jen.Index().Qual(GojaPath, "Value").Values(append(vals, extra...)...)))
	}
	ev := jen.Qual(e.Var.Pkg, e.Var.Name)
	ctxParam := jen.Id("ctx").Qual("context", "Context")
	logFail := jen.Id("r").Dot("Logger").Call().Dot("Warn").Call(jen.Lit("listener failed"), jen.Lit("event"), jen.Lit(e.Name), jen.Lit("err"), jen.Err())
	var listener jen.Code
	switch e.Mode {
	case catalog.ModeEmit:
		// Fire and forget: the listener's promise is not awaited (DeliverEmit reports failures).
		listener = jen.Func().Params(jen.Add(p).Add(payload)).Block(
			jen.Id("r").Dot("DeliverEmit").Call(jen.Lit(fmt.Sprintf("a listener of %q", e.Name)), jen.Id("fn"), args()))
	case catalog.ModeParallel:
		listener = jen.Func().Params(ctxParam, jen.Add(p).Add(payload)).Error().Block(
			jen.Return(jen.Id("r").Dot("Deliver").Call(jen.Id("ctx"), jen.Id("fn"), args(), jen.Nil())))
	case catalog.ModeSerial, catalog.ModeBail, catalog.ModeWaterfall:
		res := GoTypeCode(e.Result)
		conv := jen.Func().Params(jen.Id("v").Qual(GojaPath, "Value")).Error().Block(
			jen.If(jen.Op("!").Add(w.noAnswer(e.Mode, jen.Id("v")))).Block(
				jen.Id("res").Op("=").Add(w.fromJS(e.Result, jen.Id("v"), jen.Lit("the result of a listener of "+e.Name)))),
			jen.Return(jen.Nil()))
		switch e.Mode {
		case catalog.ModeSerial:
			listener = jen.Func().Params(ctxParam, jen.Add(p).Add(payload)).Params(res, jen.Error()).Block(
				jen.Var().Id("res").Add(res),
				jen.Err().Op(":=").Id("r").Dot("Deliver").Call(jen.Id("ctx"), jen.Id("fn"), args(), conv),
				jen.Return(jen.Id("res"), jen.Err()))
		case catalog.ModeBail:
			listener = jen.Func().Params(jen.Add(p).Add(payload)).Add(res).Block(
				jen.Var().Id("res").Add(res),
				jen.If(jen.Err().Op(":=").Id("r").Dot("Deliver").Call(jen.Qual("context", "Background").Call(), jen.Id("fn"), args(), conv), jen.Err().Op("!=").Nil()).Block(
					logFail, jen.Var().Id("zero").Add(res), jen.Return(jen.Id("zero"))),
				jen.Return(jen.Id("res")))
		default:
			next := jen.Id("r").Dot("NextFunc").Call(jen.Func().Params(jen.Qual("context", "Context")).Params(jen.Func().Params().Qual(GojaPath, "Value"), jen.Error()).Block(
				jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("next").Call(),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Func().Params().Qual(GojaPath, "Value").Block(jen.Return(w.toJS(e.Result, jen.Id("v"), e.Name))), jen.Nil())))
			listener = jen.Func().Params(ctxParam, jen.Add(p).Add(payload), jen.Id("next").Func().Params().Params(res, jen.Error())).Params(res, jen.Error()).Block(
				jen.Var().Id("res").Add(res),
				jen.Err().Op(":=").Id("r").Dot("Deliver").Call(jen.Id("ctx"), jen.Id("fn"), args(next), conv),
				jen.Return(jen.Id("res"), jen.Err()))
		}
	}
	return jen.Comment(fmt.Sprintf("%s subscribes a JavaScript listener to %q (%s).", name, e.Name, e.Mode)).Line().
		Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("c").Op("*").Qual(KitPath, "Context"), jen.Id("fn").Qual(GojaPath, "Callable")).
		Params(jen.Func().Params(), jen.Error()).Block(jen.Return(jen.Add(ev).Dot("On").Call(jen.Id("c"), listener)))
}

// noAnswer tests v, a listener's result, for no answer, which leaves the result at its
// zero value. A serial or bail listener passes with undefined, null or false
// (sandbox.Passes, the one place that rule lives); a waterfall listener's undefined or
// null is the zero value, and its false is converted like any other value.
func (w *facadeWriter) noAnswer(mode catalog.Mode, v jen.Code) jen.Code {
	if mode == catalog.ModeSerial || mode == catalog.ModeBail {
		return jen.Qual(SandboxPath, "Passes").Call(v)
	}
	w.absentHelper()
	return jen.Id("cordisIsAbsent").Call(v)
}

// absentHelper declares cordisIsAbsent: undefined or null, which a waterfall listener
// returns for the zero value.
func (w *facadeWriter) absentHelper() {
	w.helpers["cordisIsAbsent"] = jen.Func().Id("cordisIsAbsent").Params(jen.Id("v").Qual(GojaPath, "Value")).Bool().Block(
		jen.Return(jen.Id("v").Op("==").Nil().Op("||").Qual(GojaPath, "IsUndefined").Call(jen.Id("v")).Op("||").Qual(GojaPath, "IsNull").Call(jen.Id("v"))))
}

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
	BindPath    = "github.com/cordiskit/cordiskit/sandbox/bind"
	GojaPath    = "github.com/dop251/goja"
)

// FacadeGo renders facade_gen.go: the sandbox whitelist as code, following the binding
// contract (package sandbox/bind). For each service, a binder that builds a JavaScript
// object holding only the service's catalogued methods, one generic bind helper call per
// method with typed argument and result conversion; for each event, an adapter by dispatch
// mode that subscribes a JavaScript function as a typed Go listener and turns each payload
// into positional arguments; and
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
		decl, err := w.binder(name, &s)
		if err != nil {
			return nil, fmt.Errorf("facade: %w", err)
		}
		funcs = append(funcs, decl)
	}
	for _, e := range c.Events {
		adapters = append(adapters, jen.Lit(e.Name).Op(":").Add(w.adapter(&e)))
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
		names: map[string]string{SandboxPath: "sandbox", BindPath: "bind", GojaPath: "goja", KitPath: "kit"}})
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

// maxArity is the most JavaScript parameters a bound method may have: the bind package
// has a helper per arity up to it.
const maxArity = 4

// binder writes the ServiceBinder of one service: the service value asserted to its type,
// and an object of its catalogued methods, one bind helper call each.
func (w *facadeWriter) binder(name string, s *catalog.Service) (jen.Code, error) {
	var methods []jen.Code
	for i := range s.Methods {
		m, err := w.method(s.Key+"."+s.Methods[i].JSName, &s.Methods[i])
		if err != nil {
			return nil, err
		}
		methods = append(methods, m)
	}
	multi := jen.Options{Open: "(r,", Close: ")", Separator: ",", Multi: true}
	body := []jen.Code{
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Qual(BindPath, "Service").Types(GoTypeCode(s.Type)).Call(jen.Lit(s.Key), jen.Id("v")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Qual(BindPath, "Object").Custom(multi, methods...)),
	}
	return jen.Comment(fmt.Sprintf("%s binds service %q (%s): only its catalogued methods.", name, s.Key, s.TypeName)).Line().
		Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("v").Any()).
		Params(jen.Op("*").Qual(GojaPath, "Object"), jen.Error()).Block(body...), nil
}

// method writes one method's binding: bind.FuncN (a sync method, called off the lock) or
// bind.AsyncN (one taking a context: a Promise), with N the JavaScript parameters, each
// named and read by an Arg, then the method adapted to the helper's canonical
// func(…) (R, error), and the Result that builds what JavaScript gets.
func (w *facadeWriter) method(method string, m *catalog.Method) (jen.Code, error) {
	var names, readers, params, args []jen.Code
	for i, p := range m.Params {
		switch p.Role {
		case catalog.RoleContext:
			params = append(params, jen.Id("ctx").Qual("context", "Context"))
			args = append(args, jen.Id("ctx"))
		case catalog.RoleKit:
			args = append(args, jen.Id("r").Dot("Context").Call())
		default:
			a := jen.Id(fmt.Sprintf("a%d", i))
			names = append(names, jen.Lit(p.JSName))
			readers = append(readers, w.argFunc(p))
			params = append(params, jen.Add(a).Add(GoTypeCode(p.Go)))
			args = append(args, a)
		}
	}
	if len(names) > maxArity {
		return nil, fmt.Errorf("%s: %d JavaScript parameters; a bound method takes at most %d: take a struct instead", method, len(names), maxArity)
	}
	helper := fmt.Sprintf("Func%d", len(names))
	if m.Async {
		helper = fmt.Sprintf("Async%d", len(names))
	}
	vals := m.Results
	hasErr := len(vals) > 0 && vals[len(vals)-1].Go.Kind == catalog.KindBasic && vals[len(vals)-1].Go.Name == "error"
	if hasErr {
		vals = vals[:len(vals)-1]
	}
	var res jen.Code = jen.Nil()
	if len(vals) > 0 {
		res = w.resultFunc(vals[0].Go, method)
	}
	call := append(append([]jen.Code{idR, jen.Lit(method)}, names...), readers...)
	call = append(call, w.canonical(m, params, args, vals, hasErr), res)
	return jen.Qual(BindPath, helper).Call(call...), nil
}

// canonical adapts the method to func(params) (R, error): the method value itself when it
// has that form, else a literal calling it (Found for a (T, bool) result, Void for none).
func (w *facadeWriter) canonical(m *catalog.Method, params, args []jen.Code, vals []catalog.Param, hasErr bool) jen.Code {
	direct := hasErr && len(vals) == 1
	for _, p := range m.Params {
		direct = direct && p.Role != catalog.RoleKit
	}
	if direct {
		return jen.Id("s").Dot(m.Name)
	}
	call := jen.Id("s").Dot(m.Name).Call(args...)
	r := jen.Any()
	if len(vals) > 0 {
		r = GoTypeCode(vals[0].Go)
	}
	var body []jen.Code
	switch {
	case len(vals) == 0 && hasErr:
		r, body = jen.Struct(), []jen.Code{jen.Return(jen.Qual(BindPath, "Void").Call(call))}
	case len(vals) == 0:
		r, body = jen.Struct(), []jen.Code{call, jen.Return(jen.Qual(BindPath, "Void").Call(jen.Nil()))}
	case len(vals) == 1 && hasErr:
		body = []jen.Code{jen.Return(call)}
	case len(vals) == 1:
		body = []jen.Code{jen.Return(call, jen.Nil())}
	case !hasErr: // (T, bool): not found is undefined
		body = []jen.Code{jen.Return(jen.Qual(BindPath, "Found").Call(call))}
	default:
		body = []jen.Code{
			jen.List(jen.Id("v"), jen.Id("ok"), jen.Err()).Op(":=").Add(call),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("v"), jen.Err())),
			jen.Return(jen.Qual(BindPath, "Found").Call(jen.Id("v"), jen.Id("ok"))),
		}
	}
	if len(body) > 1 {
		return jen.Func().Params(params...).Params(r, jen.Error()).Block(body...)
	}
	// One statement: on one line, as gofmt keeps a short function literal.
	return jen.Func().Params(params...).Params(r, jen.Error()).Custom(jen.Options{Open: "{ ", Close: " }"}, body...)
}

// kitEventAdapters names the bind adapter of each dispatch mode.
var kitEventAdapters = map[catalog.Mode]string{
	catalog.ModeEmit: "OnEmit", catalog.ModeParallel: "OnParallel", catalog.ModeSerial: "OnSerial",
	catalog.ModeBail: "OnBail", catalog.ModeWaterfall: "OnWaterfall",
}

// adapter writes the EventAdapter of one event: the bind adapter of its dispatch mode
// with the function that turns a payload into the listener's positional arguments, and
// for a mode that reads the listener's result, its conversion (a waterfall's next result
// goes to JavaScript too). A serial or bail listener passes with undefined, null or false
// (bind.Passes, the one place that rule lives); a waterfall listener's undefined or
// null is the zero value, and its false is converted like any other value.
func (w *facadeWriter) adapter(e *catalog.Event) jen.Code {
	var vals []jen.Code
	for _, f := range e.Params {
		vals = append(vals, w.toJS(f.Go, jen.Id("p").Dot(f.Name), e.Name))
	}
	args := jen.Func().Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("p").Add(GoTypeCode(e.Payload))).Index().Qual(GojaPath, "Value").Block(
		jen.Return(jen.Index().Qual(GojaPath, "Value").Values(vals...)))
	call := []jen.Code{jen.Qual(e.Var.Pkg, e.Var.Name), args}
	switch e.Mode {
	case catalog.ModeSerial, catalog.ModeBail:
		call = append(call, w.fromFunc(e.Result))
	case catalog.ModeWaterfall:
		call = append(call, w.resultFunc(e.Result, e.Name), w.fromFunc(e.Result))
	}
	return jen.Qual(BindPath, kitEventAdapters[e.Mode]).Call(call...)
}

// absentHelper declares cordisIsAbsent: undefined or null, which a waterfall listener
// returns for the zero value.
func (w *facadeWriter) absentHelper() {
	w.helpers["cordisIsAbsent"] = jen.Func().Id("cordisIsAbsent").Params(jen.Id("v").Qual(GojaPath, "Value")).Bool().Block(
		jen.Return(jen.Id("v").Op("==").Nil().Op("||").Qual(GojaPath, "IsUndefined").Call(jen.Id("v")).Op("||").Qual(GojaPath, "IsNull").Call(jen.Id("v"))))
}

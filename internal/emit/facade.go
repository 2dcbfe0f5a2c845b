package emit

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"

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
//
// The code is written as text (facadetext.go), its imports named as jennifer would name
// them (writeGo).
func FacadeGo(c *catalog.Catalog, pkg, header string) ([]byte, error) {
	head, decls, err := writeGo(&goFile{pkg: pkg, header: header,
		names: map[string]string{SandboxPath: "sandbox", BindPath: "bind", GojaPath: "goja", KitPath: "kit"}},
		nil, func(q qualifier) ([]string, error) { return facadeDecls(c, q) })
	if err != nil {
		return nil, fmt.Errorf("facade: %w", err)
	}
	out := bytes.TrimRight(head, "\n")
	out = append(out, '\n')
	for _, d := range decls {
		out = append(append(append(out, '\n'), d...), '\n')
	}
	if bytes.Contains(out, []byte(depthBlank)) {
		return nil, errors.New("facade: a binary expression was left outside any statement or list; the façade writer needs fixing")
	}
	return out, nil
}

// facadeDecls writes the façade's declarations in file order, naming each imported
// package with q.
func facadeDecls(c *catalog.Catalog, q qualifier) ([]string, error) {
	w := &facadeWriter{cat: c, qualifier: q, helpers: map[string]string{}, byKey: map[string]string{}}
	var binders, adapters []kv
	var funcs []string
	for _, s := range c.Services {
		name := "cordisBind" + camel(s.Key)
		binders = append(binders, field(lit(s.Key), name))
		decl, err := w.binder(name, &s)
		if err != nil {
			return nil, err
		}
		funcs = append(funcs, decl)
	}
	for _, e := range c.Events {
		adapters = append(adapters, field(lit(e.Name), w.adapter(&e)))
	}
	seams, seamDecls := w.seams(c)
	funcs = append(funcs, seamDecls...)
	facade := []kv{
		field("Services", keyedLines("map[string]"+w.q(SandboxPath, "ServiceBinder"), binders)),
		field("Events", keyedLines("map[string]"+w.q(SandboxPath, "EventAdapter"), adapters)),
	}
	if len(seams) > 0 {
		facade = append(facade, field("Seams", keyedLines("map[string]*"+w.q(BindPath, "SeamAdapter"), seams)))
	}
	decls := []string{"// Facade is the sandbox whitelist of these declarations: a binder per service and an\n" +
		"// adapter per event. Nothing else in Go is reachable from JavaScript through it.\n" +
		"var Facade = " + keyedLines("&"+w.q(SandboxPath, "Facade"), facade)}
	decls = append(decls, funcs...)
	for _, name := range slices.Sorted(maps.Keys(w.helpers)) {
		decls = append(decls, w.helpers[name])
	}
	return decls, nil
}

// A facadeWriter collects the conversion helpers the bindings use, one per Go type.
type facadeWriter struct {
	qualifier // the package names
	cat       *catalog.Catalog
	helpers   map[string]string // function name → declaration
	byKey     map[string]string // direction + GoType.String() → function name
}

// realmParam is the parameter every generated function has the realm in.
func (w *facadeWriter) realmParam() string { return "r *" + w.q(SandboxPath, "Realm") }

// gojaValue is goja.Value.
func (w *facadeWriter) gojaValue() string { return w.q(GojaPath, "Value") }

// gojaValues is []goja.Value, what a listener or a JavaScript function is called with.
func (w *facadeWriter) gojaValues() string { return "[]" + w.gojaValue() }

// bind is the qualified identifier name of package bind.
func (w *facadeWriter) bind(name string) string { return w.q(BindPath, name) }

// maxArity is the most JavaScript parameters a bound method may have: the bind package
// has a helper per arity up to it.
const maxArity = 4

// binder writes the ServiceBinder of one service: the service value asserted to its type,
// and an object of its catalogued methods, one bind helper call each.
func (w *facadeWriter) binder(name string, s *catalog.Service) (string, error) {
	var methods []string
	for i := range s.Methods {
		m, err := w.method(s.Key+"."+s.Methods[i].JSName, &s.Methods[i])
		if err != nil {
			return "", err
		}
		methods = append(methods, m)
	}
	sig := signature(" "+name, []string{w.realmParam(), "v any"}, []string{"*" + w.q(GojaPath, "Object"), "error"})
	return fmt.Sprintf("// %s binds service %q (%s): only its catalogued methods.\n", name, s.Key, s.TypeName) +
		funcLit(sig,
			"s, err := "+call(w.bind("Service")+"["+w.goType(s.Type)+"]", lit(s.Key), "v"),
			ifBlock("err != nil", "return nil, err"),
			"return "+callLines(w.bind("Object"), "r", methods)), nil
}

// method writes one method's binding: bind.FuncN (a sync method, called off the lock) or
// bind.AsyncN (one taking a context: a Promise), with N the JavaScript parameters, each
// named and read by an Arg, then the method adapted to the helper's canonical
// func(…) (R, error), and the Result that builds what JavaScript gets.
func (w *facadeWriter) method(method string, m *catalog.Method) (string, error) {
	var names, readers, params, args []string
	for i, p := range m.Params {
		switch p.Role {
		case catalog.RoleContext:
			params = append(params, "ctx "+w.q("context", "Context"))
			args = append(args, "ctx")
		case catalog.RoleKit:
			args = append(args, "r.Context()")
		default:
			a := fmt.Sprintf("a%d", i)
			names = append(names, lit(p.JSName))
			readers = append(readers, w.argFunc(p))
			params = append(params, a+" "+w.goType(p.Go))
			args = append(args, a)
		}
	}
	if len(names) > maxArity {
		return "", fmt.Errorf("%s: %d JavaScript parameters; a bound method takes at most %d: take a struct instead", method, len(names), maxArity)
	}
	helper := fmt.Sprintf("Func%d", len(names))
	if m.Async {
		helper = fmt.Sprintf("Async%d", len(names))
	}
	vals, hasErr := splitError(m.Results)
	res := "nil"
	if len(vals) > 0 {
		res = w.resultFunc(vals[0].Go, method)
	}
	callArgs := append(append([]string{"r", lit(method)}, names...), readers...)
	callArgs = append(callArgs, w.canonical(m, params, args, vals, hasErr), res)
	return call(w.bind(helper), callArgs...), nil
}

// splitError returns a method's results without a last error result, and whether it has
// one.
func splitError(results []catalog.Param) ([]catalog.Param, bool) {
	n := len(results)
	if n > 0 && results[n-1].Go.Kind == catalog.KindBasic && results[n-1].Go.Name == "error" {
		return results[:n-1], true
	}
	return results, false
}

// canonical adapts the method to func(params) (R, error): the method value itself when it
// has that form, else a literal calling it (Found for a (T, bool) result, Void for none).
func (w *facadeWriter) canonical(m *catalog.Method, params, args []string, vals []catalog.Param, hasErr bool) string {
	direct := hasErr && len(vals) == 1
	for _, p := range m.Params {
		direct = direct && p.Role != catalog.RoleKit
	}
	if direct {
		return "s." + m.Name
	}
	mcall := call("s."+m.Name, args...)
	r := "any"
	if len(vals) > 0 {
		r = w.goType(vals[0].Go)
	}
	var body []string
	switch {
	case len(vals) == 0 && hasErr:
		r, body = "struct{}", []string{"return " + call(w.bind("Void"), mcall)}
	case len(vals) == 0:
		r, body = "struct{}", []string{mcall, "return " + call(w.bind("Void"), "nil")}
	case len(vals) == 1 && hasErr:
		body = []string{"return " + mcall}
	case len(vals) == 1:
		body = []string{"return " + mcall + ", nil"}
	case !hasErr: // (T, bool): not found is undefined
		body = []string{"return " + call(w.bind("Found"), mcall)}
	default:
		body = []string{
			"v, ok, err := " + mcall,
			ifBlock("err != nil", "return v, err"),
			"return " + call(w.bind("Found"), "v", "ok"),
		}
	}
	sig := signature("", params, []string{r, "error"})
	if len(body) > 1 {
		return funcLit(sig, body...)
	}
	return shortFunc(sig, body[0])
}

// adapter writes the EventAdapter of one event: the bind adapter of its dispatch mode
// with the function that turns a payload into the listener's positional arguments, and
// for a mode that reads the listener's result, its conversion (a waterfall's next result
// goes to JavaScript too). A serial or bail listener passes with undefined, null or false
// (bind.Passes, the one place that rule lives); a waterfall listener's undefined or
// null is the zero value, and its false is converted like any other value.
func (w *facadeWriter) adapter(e *catalog.Event) string {
	var vals []string
	for _, f := range e.Params {
		vals = append(vals, w.toJS(f.Go, "p."+f.Name, e.Name))
	}
	args := funcLit(signature("", []string{w.realmParam(), "p " + w.goType(e.Payload)}, []string{w.gojaValues()}),
		"return "+values(w.gojaValues(), vals...))
	callArgs := []string{w.q(e.Var.Pkg, e.Var.Name), args}
	spec := modeSpec(e.Mode)
	if spec.Next {
		callArgs = append(callArgs, w.resultFunc(e.Result, e.Name))
	}
	if spec.Result {
		callArgs = append(callArgs, w.fromFunc(e.Result))
	}
	return call(w.bind(spec.Adapter), callArgs...)
}

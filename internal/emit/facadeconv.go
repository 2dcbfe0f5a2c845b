package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/cordiskit/cordiskit/catalog"
)

// plainBasic returns the basic type a parameter converts through when one bind Arg
// function reads it directly: a basic type, time.Duration, or a named non-enum type over
// a basic one. Enums go through a helper that checks the value; everything else too.
func (w *facadeWriter) plainBasic(gt *catalog.GoType) *catalog.GoType {
	switch {
	case gt.Kind == catalog.KindBasic && gt.Name != "error":
		return gt
	case gt.Is("time", "Duration"):
		return gt
	case gt.Kind == catalog.KindNamed:
		if t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name}); t != nil && t.Kind == catalog.TypeValue && t.Underlying.Kind == catalog.KindBasic {
			return t.Underlying
		}
	}
	return nil
}

// basicKind names the bind functions that read a basic type: "String" for bind.String
// and bind.ToString, and so on; "" when basic is nil.
func basicKind(basic *catalog.GoType) string {
	switch {
	case basic == nil:
		return ""
	case basic.Is("time", "Duration"):
		return "Duration"
	case basic.Name == "string":
		return "String"
	case basic.Name == "bool":
		return "Bool"
	case strings.HasPrefix(basic.Name, "float"):
		return "Float"
	}
	return "Int"
}

// basicFunc is the bind function value that reads gt, whose basic type is basic (see
// plainBasic): an Arg (prefix "") or a From (prefix "To"). Durations have their own;
// the others are generic in gt, integers checked to fit.
func (w *facadeWriter) basicFunc(gt, basic *catalog.GoType, prefix string) jen.Code {
	fn := jen.Qual(BindPath, prefix+basicKind(basic))
	if gt.Is("time", "Duration") {
		return fn
	}
	return fn.Types(GoTypeCode(gt))
}

// argFunc is the bind.Arg that reads parameter p of method.
func (w *facadeWriter) argFunc(p catalog.Param) jen.Code {
	if p.Go.Kind == catalog.KindFunc {
		return jen.Id(w.helper("Arg", p.Go, func(name string) jen.Code { return w.callbackArg(name, p.Go) }))
	}
	if basic := w.plainBasic(p.Go); basic != nil {
		return w.basicFunc(p.Go, basic, "")
	}
	return jen.Qual(BindPath, "ArgFrom").Call(w.fromFunc(p.Go))
}

// callbackArg declares the bind.Arg of a callback parameter of type gt: the JavaScript
// function, wrapped as the Go callback, each call delivered with emit semantics
// (bind.DeliverEmit: its result and promise ignored, a failure reported).
func (w *facadeWriter) callbackArg(name string, gt *catalog.GoType) jen.Code {
	var params, vals []jen.Code
	for i, pt := range gt.Params {
		x := jen.Id(fmt.Sprintf("x%d", i))
		params = append(params, jen.Add(x).Add(GoTypeCode(pt)))
		vals = append(vals, w.toJS(pt, x, "a callback argument"))
	}
	return jen.Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("v").Qual(GojaPath, "Value"), jen.List(jen.Id("method"), jen.Id("param")).String()).Add(GoTypeCode(gt)).Block(
		jen.Id("cb").Op(":=").Qual(BindPath, "Callback").Call(idR, jen.Id("v"), jen.Id("method"), jen.Id("param")),
		jen.Id("what").Op(":=").Lit("the ").Op("+").Id("param").Op("+").Lit(" callback of ").Op("+").Id("method"),
		jen.Return(jen.Func().Params(params...).Block(
			jen.Qual(BindPath, "DeliverEmit").Call(idR, jen.Id("what"), jen.Id("cb"),
				jen.Func().Params().Index().Qual(GojaPath, "Value").Block(jen.Return(jen.Index().Qual(GojaPath, "Value").Values(vals...)))))),
	)
}

// fromFunc is the bind.From that converts a JavaScript value to gt at the top of one
// conversion (a listener's result, an argument): a helper that needs a budget gets a
// fresh one (bind.Budgeted).
func (w *facadeWriter) fromFunc(gt *catalog.GoType) jen.Code {
	if basic := w.plainBasic(gt); basic != nil {
		return w.basicFunc(gt, basic, "To")
	}
	switch {
	case gt.Kind == catalog.KindStruct:
		return jen.Qual(BindPath, "Nothing")
	case gt.Is("encoding/json", "RawMessage"):
		return jen.Qual(SandboxPath, "ToJSON")
	}
	return jen.Qual(BindPath, "Budgeted").Call(w.convFunc(gt))
}

// convFunc is the bind.Conv that converts a JavaScript value to gt inside a conversion,
// taking from its budget: a slice, map or pointer composed by bind, a catalogued struct,
// enum, value type, array, error, any or time.Time through a generated helper.
func (w *facadeWriter) convFunc(gt *catalog.GoType) jen.Code {
	if basic := w.plainBasic(gt); basic != nil {
		if basic.Name == "string" {
			return jen.Qual(BindPath, "Text").Types(GoTypeCode(gt))
		}
		return jen.Qual(BindPath, "Unbudgeted").Call(w.basicFunc(gt, basic, "To"))
	}
	switch {
	case gt.Kind == catalog.KindStruct:
		return jen.Qual(BindPath, "Unbudgeted").Call(jen.Qual(BindPath, "Nothing"))
	case gt.Is("encoding/json", "RawMessage"):
		return jen.Qual(BindPath, "RawJSON")
	case gt.Kind == catalog.KindSlice:
		return jen.Qual(BindPath, "FromSlice").Call(w.convFunc(gt.Elem))
	case gt.Kind == catalog.KindMap:
		return jen.Qual(BindPath, "FromMap").Types(GoTypeCode(gt.Key)).Call(w.convFunc(gt.Elem))
	case gt.Kind == catalog.KindPointer:
		return jen.Qual(BindPath, "FromPtr").Call(w.convFunc(gt.Elem))
	}
	return jen.Id(w.helper("FromJS", gt, func(name string) jen.Code { return w.fromJSHelper(name, gt) }))
}

// resultFunc is the bind.Result that builds the JavaScript value of a Go value of type gt
// (a method's result, a waterfall's next result). method names disposers in errors.
func (w *facadeWriter) resultFunc(gt *catalog.GoType, method string) jen.Code {
	switch {
	case gt.Kind == catalog.KindBasic && gt.Name == "error":
		return jen.Qual(BindPath, "ErrorValue")
	case gt.Kind == catalog.KindBasic:
		return jen.Qual(BindPath, "Value").Types(GoTypeCode(gt))
	case gt.Kind == catalog.KindAny:
		return jen.Qual(BindPath, "FromAny")
	case gt.Kind == catalog.KindFunc:
		return jen.Qual(BindPath, "Disposer").Call(jen.Lit(method + " disposer"))
	case gt.Is("time", "Duration"):
		return jen.Qual(BindPath, "Millis")
	case gt.Is("time", "Time"):
		return jen.Qual(BindPath, "Data").Types(GoTypeCode(gt))
	case gt.Is("encoding/json", "RawMessage"):
		return jen.Qual(SandboxPath, "FromJSON")
	case gt.Kind == catalog.KindSlice:
		return jen.Qual(BindPath, "SliceResult").Call(w.resultFunc(gt.Elem, method))
	case gt.Kind == catalog.KindMap:
		return jen.Qual(BindPath, "MapResult").Types(GoTypeCode(gt.Key)).Call(w.resultFunc(gt.Elem, method))
	case gt.Kind == catalog.KindPointer:
		return jen.Qual(BindPath, "PtrResult").Call(w.resultFunc(gt.Elem, method))
	}
	return jen.Id(w.helper("ToJS", gt, func(name string) jen.Code {
		if gt.Kind == catalog.KindStruct {
			return jen.Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("x").Add(GoTypeCode(gt))).Qual(GojaPath, "Value").Block(
				jen.Return(w.toJS(gt, jen.Id("x"), method)))
		}
		if gt.Kind == catalog.KindNamed {
			if t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name}); t != nil && t.Kind != catalog.TypeStruct {
				// A value type: what toJS writes inline, as a function.
				return jen.Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("x").Add(GoTypeCode(gt))).Qual(GojaPath, "Value").Block(
					jen.Return(w.toJS(gt, jen.Id("x"), method)))
			}
		}
		return w.toJSHelper(name, gt, method)
	}))
}

// convertString converts v, a string, to gt when gt is a named string type.
func convertString(gt *catalog.GoType, v jen.Code) jen.Code {
	if gt.Kind == catalog.KindBasic && gt.Name == "string" {
		return v
	}
	return jen.Add(GoTypeCode(gt)).Call(v)
}

func isAbsent(v jen.Code) jen.Code {
	return jen.Add(v).Op("==").Nil().Op("||").Qual(GojaPath, "IsUndefined").Call(v).Op("||").Qual(GojaPath, "IsNull").Call(v)
}

// helper returns the name of the conversion function for one direction and Go type,
// declaring it with build on first use.
func (w *facadeWriter) helper(dir string, gt *catalog.GoType, build func(name string) jen.Code) string {
	key := dir + " " + gt.String()
	if name, ok := w.byKey[key]; ok {
		return name
	}
	base := "cordis" + dir + strings.TrimPrefix(goTypeVarName(gt), "cordis")
	name := base
	for i := 2; w.helpers[name] != nil; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	w.byKey[key] = name
	w.helpers[name] = jen.Null() // reserve it: build may recurse into other helpers
	w.helpers[name] = build(name)
	return name
}

// toJS converts the Go value x of type gt to a goja.Value (under the realm lock). method
// names disposers in error messages.
func (w *facadeWriter) toJS(gt *catalog.GoType, x jen.Code, method string) jen.Code {
	rt := runtimeCall()
	switch gt.Kind {
	case catalog.KindBasic:
		if gt.Name == "error" {
			return jen.Qual(BindPath, "ErrorValue").Call(idR, x)
		}
		return rt.Dot("ToValue").Call(x)
	case catalog.KindAny:
		return jen.Qual(BindPath, "FromAny").Call(idR, x)
	case catalog.KindStruct:
		return rt.Dot("NewObject").Call()
	case catalog.KindFunc:
		return jen.Qual(BindPath, "DisposerValue").Call(idR, jen.Lit(method+" disposer"), x)
	case catalog.KindSlice:
		return jen.Qual(BindPath, "SliceValue").Call(idR, x, w.resultFunc(gt.Elem, method))
	case catalog.KindMap:
		return jen.Qual(BindPath, "MapValue").Call(idR, x, w.resultFunc(gt.Elem, method))
	case catalog.KindPointer:
		return jen.Qual(BindPath, "PtrValue").Call(idR, x, w.resultFunc(gt.Elem, method))
	case catalog.KindNamed:
		switch gt.Pkg + "." + gt.Name {
		case "time.Duration":
			// Milliseconds, as ArgDuration reads them.
			return rt.Dot("ToValue").Call(jen.Float64().Call(x).Op("/").Float64().Call(jen.Qual("time", "Millisecond")))
		case "time.Time":
			return jen.Qual(BindPath, "FromAny").Call(idR, x)
		case "encoding/json.RawMessage":
			return jen.Qual(SandboxPath, "FromJSON").Call(idR, x)
		}
		t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name})
		if t == nil {
			panic("emit: no shape for " + gt.String())
		}
		if t.Kind != catalog.TypeStruct {
			return w.toJS(t.Underlying, jen.Add(GoTypeCode(t.Underlying)).Call(x), method)
		}
	}
	name := w.helper("ToJS", gt, func(name string) jen.Code { return w.toJSHelper(name, gt, method) })
	return jen.Id(name).Call(idR, x)
}

// toJSHelper declares func name(r *sandbox.Realm, x T) goja.Value for a struct or an
// array type (slices, maps and pointers are bind's SliceValue, MapValue and PtrValue).
func (w *facadeWriter) toJSHelper(name string, gt *catalog.GoType, method string) jen.Code {
	rt := runtimeCall()
	var body []jen.Code
	switch gt.Kind {
	case catalog.KindNamed: // a struct: a plain object, field by field
		t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name})
		body = append(body, jen.Id("o").Op(":=").Add(rt).Dot("NewObject").Call())
		for _, f := range t.Fields {
			body = append(body, jen.Id("_").Op("=").Id("o").Dot("Set").Call(jen.Lit(f.JSName), w.toJS(f.Go, jen.Id("x").Dot(f.Name), method)))
		}
		body = append(body, jen.Return(jen.Id("o")))
	case catalog.KindArray:
		body = append(body,
			jen.Id("vals").Op(":=").Make(jen.Index().Any(), jen.Len(jen.Id("x"))),
			jen.For(jen.List(jen.Id("i"), jen.Id("e")).Op(":=").Range().Id("x")).Block(
				jen.Id("vals").Index(jen.Id("i")).Op("=").Add(w.toJS(gt.Elem, jen.Id("e"), method))),
			jen.Return(rt.Clone().Dot("NewArray").Call(jen.Id("vals").Op("..."))))
	default:
		panic("emit: no JavaScript form for " + gt.String())
	}
	return jen.Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("x").Add(GoTypeCode(gt))).Qual(GojaPath, "Value").Block(body...)
}

// fromJS converts the goja.Value v to the Go type gt (under the realm lock), throwing a
// TypeError that names path when v does not fit. It is one conversion: a value that needs
// a helper gets a fresh bind.Budget, which bounds everything the conversion produces.
func (w *facadeWriter) fromJS(gt *catalog.GoType, v, path jen.Code) jen.Code {
	return w.fromJSIn(gt, nil, v, path)
}

// idB is the budget every fromJS helper has in scope.
var idB = jen.Id("b")

// fromJSIn is fromJS inside a conversion whose budget is b (nil at the top, where one is
// made only if needed): strings take their bytes from it, arrays and maps their elements,
// so a value that is small in the JavaScript heap cannot make Go copy without end.
func (w *facadeWriter) fromJSIn(gt *catalog.GoType, b, v, path jen.Code) jen.Code {
	if basic := w.plainBasic(gt); basic != nil {
		if basic.Name == "string" && b != nil {
			return convertString(gt, jen.Add(b).Dot("String").Call(v, path))
		}
		return jen.Add(w.basicFunc(gt, basic, "To")).Call(idR, v, path)
	}
	switch gt.Kind {
	case catalog.KindStruct:
		return jen.Struct().Values()
	case catalog.KindBasic, catalog.KindAny: // error, any
	case catalog.KindNamed:
		switch gt.Pkg + "." + gt.Name {
		case "encoding/json.RawMessage":
			if b != nil {
				return jen.Add(b).Dot("JSON").Call(v, path)
			}
			return jen.Qual(SandboxPath, "ToJSON").Call(idR, v, path)
		case "time.Time":
		default:
			t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name})
			if t.Kind == catalog.TypeValue {
				return jen.Add(GoTypeCode(gt)).Call(w.fromJSIn(t.Underlying, b, v, path))
			}
		}
	}
	if b == nil {
		b = jen.Qual(BindPath, "NewBudget").Call(idR)
	}
	return jen.Add(w.convFunc(gt)).Call(idR, b, v, path)
}

// fromJSHelper declares func name(r *sandbox.Realm, b *bind.Budget, v goja.Value,
// path string) T, a bind.Conv, for a catalogued struct, enum or value type, an array, an
// error, any or time.Time (slices, maps and pointers are bind's FromSlice, FromMap and
// FromPtr).
func (w *facadeWriter) fromJSHelper(name string, gt *catalog.GoType) jen.Code {
	v, path := jen.Id("v"), jen.Id("path")
	typ := GoTypeCode(gt)
	var body []jen.Code
	switch gt.Kind {
	case catalog.KindBasic, catalog.KindAny, catalog.KindNamed:
		switch {
		case gt.Kind == catalog.KindBasic: // error: an Error's message, or a string
			body = w.errorFromJS()
		case gt.Kind == catalog.KindAny || gt.Is("time", "Time"):
			// Through JSON: plain data only. undefined is the zero value.
			body = []jen.Code{
				jen.Var().Id("out").Add(typ),
				jen.If(jen.Op("!").Parens(isAbsent(v))).Block(
					jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(idB.Clone().Dot("JSON").Call(v, path), jen.Op("&").Id("out")), jen.Err().Op("!=").Nil()).Block(
						jen.Qual(BindPath, "Throw").Call(idR, jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: %w"), path, jen.Err())))),
				jen.Return(jen.Id("out")),
			}
		default:
			body = w.namedFromJS(gt, typ)
		}
	case catalog.KindArray:
		elem := w.fromJSIn(gt.Elem, idB, jen.Id("e"), jen.Id("path").Op("+").Lit("[").Op("+").Qual("strconv", "Itoa").Call(jen.Id("i")).Op("+").Lit("]"))
		body = []jen.Code{
			jen.Id("vs").Op(":=").Add(idB).Dot("Slice").Call(v, path),
			jen.Var().Id("out").Add(typ),
			jen.If(jen.Len(jen.Id("vs")).Op("!=").Len(jen.Id("out"))).Block(
				jen.Qual(BindPath, "Throw").Call(idR, jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: expected an array of %d elements, got %d"), path, jen.Len(jen.Id("out")), jen.Len(jen.Id("vs"))))),
			jen.For(jen.List(jen.Id("i"), jen.Id("e")).Op(":=").Range().Id("vs")).Block(jen.Id("out").Index(jen.Id("i")).Op("=").Add(elem)),
			jen.Return(jen.Id("out")),
		}
	default:
		panic("emit: no conversion from JavaScript to " + gt.String())
	}
	return jen.Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("b").Op("*").Qual(BindPath, "Budget"), jen.Id("v").Qual(GojaPath, "Value"), jen.Id("path").String()).Add(typ).Block(body...)
}

// namedFromJS converts to a catalogued struct, enum or value type.
//
// A struct is read field by field as encoding/json decodes one: a field the object leaves
// out, or sets to undefined or null, keeps Go's zero value (a slice, map or pointer is nil),
// so JavaScript need not spell out an empty id or tags; a field of the wrong type is a
// TypeError naming its path. An enum is checked against its constants, and its zero value
// "" is always accepted, constant or not: it is what Go sends for an unset field, so a
// struct Go gave JavaScript goes back unchanged.
func (w *facadeWriter) namedFromJS(gt *catalog.GoType, typ jen.Code) []jen.Code {
	t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name})
	switch t.Kind {
	case catalog.TypeEnum:
		return w.enumFromJS(t, gt, typ)
	case catalog.TypeValue:
		return []jen.Code{jen.Return(jen.Add(typ).Call(w.fromJSIn(t.Underlying, idB, jen.Id("v"), jen.Id("path"))))}
	}
	body := []jen.Code{
		jen.Id("o").Op(":=").Qual(BindPath, "ToObject").Call(idR, jen.Id("v"), jen.Id("path")),
		jen.Var().Id("out").Add(typ),
	}
	for _, f := range t.Fields {
		body = append(body, jen.Qual(BindPath, "Field").Call(idR, idB, jen.Id("o"), jen.Id("path"), jen.Lit(f.JSName), jen.Op("&").Id("out").Dot(f.Name), w.convFunc(f.Go)))
	}
	return append(body, jen.Return(jen.Id("out")))
}

// enumFromJS reads a string and checks it against the enum's values and its zero value.
// The cases name the constants (one per value: two constants may share one), so a
// constant that goes away breaks the build instead of going unchecked.
func (w *facadeWriter) enumFromJS(t *catalog.Type, gt *catalog.GoType, typ jen.Code) []jen.Code {
	var cases []jen.Code
	var names []string
	seen := map[string]bool{}
	for _, e := range t.Enum {
		if seen[e.Value] {
			continue
		}
		seen[e.Value] = true
		cases = append(cases, jen.Qual(gt.Pkg, e.Name))
		names = append(names, fmt.Sprintf("%q", e.Value))
	}
	want := strings.Join(names, ", ")
	if !seen[""] {
		cases = append(cases, jen.Lit(""))
		want += ` (or "" for none)`
	}
	return []jen.Code{
		jen.Id("x").Op(":=").Add(typ).Call(idB.Clone().Dot("String").Call(jen.Id("v"), jen.Id("path"))),
		jen.Switch(jen.Id("x")).Block(jen.Case(cases...).Block(jen.Return(jen.Id("x")))),
		jen.Qual(BindPath, "Throw").Call(idR, jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: expected one of "+want+", got %q"), jen.Id("path"), jen.Id("x"))),
		jen.Return(jen.Id("x")),
	}
}

// errorFromJS reads an error argument: undefined or null is nil, an object its message,
// anything else its string form, its bytes taken from the budget.
func (w *facadeWriter) errorFromJS() []jen.Code {
	v := jen.Id("v")
	return []jen.Code{
		jen.If(isAbsent(v)).Block(jen.Return(jen.Nil())),
		jen.If(jen.List(jen.Id("o"), jen.Id("ok")).Op(":=").Id("v").Assert(jen.Op("*").Qual(GojaPath, "Object")), jen.Id("ok")).Block(
			jen.Return(jen.Qual("errors", "New").Call(idB.Clone().Dot("Text").Call(jen.Id("o").Dot("Get").Call(jen.Lit("message")), jen.Id("path").Op("+").Lit(".message"))))),
		jen.Return(jen.Qual("errors", "New").Call(idB.Clone().Dot("Text").Call(v, jen.Id("path")))),
	}
}

package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/cordiskit/cordiskit/catalog"
)

// plainBasic returns the basic type a parameter converts through when one sandbox Arg
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

// argFunc names the sandbox function that reads a basic type, and the Go type it returns.
func argFunc(gt *catalog.GoType) (fn, native string) {
	switch {
	case gt == nil:
		return "", ""
	case gt.Is("time", "Duration"):
		return "ArgDuration", "time.Duration"
	case gt.Name == "string":
		return "ArgString", "string"
	case gt.Name == "bool":
		return "ArgBool", "bool"
	case strings.HasPrefix(gt.Name, "float"):
		return "ArgFloat", "float64"
	}
	return "ArgInt", "int64"
}

// intRange is the range of a Go integer type into which an integer read from JavaScript
// (an int64 within ±2^53) does not always fit, as the bounds the check states: the signed
// and unsigned types narrower than 64 bits, and the unsigned ones (no negative values).
// int and int64 need no check on the 64-bit platforms the façade runs on; the check is
// still portable, since it compares the converted value with the original.
var intRange = map[string]string{
	"int8":    "between -128 and 127",
	"int16":   "between -32768 and 32767",
	"int32":   "between -2147483648 and 2147483647",
	"int":     "within the range of int",
	"uint8":   "between 0 and 255",
	"uint16":  "between 0 and 65535",
	"uint32":  "between 0 and 4294967295",
	"uint":    "between 0 and 2^53",
	"uint64":  "between 0 and 2^53",
	"uintptr": "between 0 and 2^53",
}

// intChecked narrows v, an int64 that sandbox.ArgInt or ToInt returned, to the basic
// integer type basic through a generated helper that throws a TypeError (a
// *sandbox.ArgError naming method and param, or the path in param) when the value does
// not fit, instead of letting the conversion wrap. It returns v unchanged for int64, and
// false when basic is not an integer type.
func (w *facadeWriter) intChecked(basic string, v, method, param jen.Code) (jen.Code, bool) {
	if basic == "int64" {
		return v, true
	}
	want, ok := intRange[basic]
	if !ok {
		return nil, false
	}
	name := "cordisCheck" + strings.ToUpper(basic[:1]) + basic[1:]
	if _, done := w.helpers[name]; !done {
		x, y := jen.Id("x"), jen.Id("y")
		fits := jen.Int64().Call(y).Op("==").Add(x)
		if strings.HasPrefix(basic, "uint") {
			fits = x.Clone().Op(">=").Lit(0).Op("&&").Uint64().Call(y).Op("==").Uint64().Call(x)
		}
		w.helpers[name] = jen.Comment(fmt.Sprintf("%s converts x, an integer read from JavaScript, to %s. It throws a", name, basic)).Line().
			Comment("TypeError when x does not fit, rather than letting the conversion wrap.").Line().
			Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("x").Int64(), jen.List(jen.Id("method"), jen.Id("param")).String()).Id(basic).Block(
			jen.Id("y").Op(":=").Id(basic).Call(jen.Id("x")),
			jen.If(jen.Op("!").Parens(fits)).Block(
				jen.Id("r").Dot("Throw").Call(jen.Op("&").Qual(SandboxPath, "ArgError").Values(jen.Dict{
					jen.Id("Method"): jen.Id("method"),
					jen.Id("Param"):  jen.Id("param"),
					jen.Id("Want"):   jen.Lit("an integer " + want),
					jen.Id("Got"):    jen.Qual("strconv", "FormatInt").Call(jen.Id("x"), jen.Lit(10)),
				}))),
			jen.Return(jen.Id("y")))
	}
	return jen.Id(name).Call(idR, v, method, param), true
}

// readBasic reads a plain basic value (see plainBasic) with the sandbox function fn,
// called with args, and converts it to gt: integers narrower than int64 range-checked,
// named types converted.
func (w *facadeWriter) readBasic(gt *catalog.GoType, fn, native string, args []jen.Code, method, param jen.Code) jen.Code {
	v := jen.Qual(SandboxPath, fn).Call(args...)
	if native == "int64" {
		if basic := w.plainBasic(gt); basic.Kind == catalog.KindBasic {
			if checked, ok := w.intChecked(basic.Name, v, method, param); ok {
				return convertTo(gt, basic.Name, checked)
			}
		}
	}
	return convertTo(gt, native, v)
}

// toFunc is argFunc's counterpart for values inside a structure.
func toFunc(arg string) string { return "To" + strings.TrimPrefix(arg, "Arg") }

// convertTo converts v, of the Go type native, to gt when they differ.
func convertTo(gt *catalog.GoType, native string, v jen.Code) jen.Code {
	if (gt.Kind == catalog.KindBasic && gt.Name == native) || (native == "time.Duration" && gt.Is("time", "Duration")) {
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
			return jen.Id(w.errorToJS()).Call(idR, x)
		}
		return rt.Dot("ToValue").Call(x)
	case catalog.KindAny:
		return jen.Qual(SandboxPath, "FromAny").Call(idR, x)
	case catalog.KindStruct:
		return rt.Dot("NewObject").Call()
	case catalog.KindFunc:
		return jen.Id(w.disposerToJS()).Call(idR, jen.Lit(method+" disposer"), x)
	case catalog.KindNamed:
		switch gt.Pkg + "." + gt.Name {
		case "time.Duration":
			// Milliseconds, as ArgDuration reads them.
			return rt.Dot("ToValue").Call(jen.Float64().Call(x).Op("/").Float64().Call(jen.Qual("time", "Millisecond")))
		case "time.Time":
			return jen.Qual(SandboxPath, "FromAny").Call(idR, x)
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

// toJSHelper declares func name(r *sandbox.Realm, x T) goja.Value for a struct, pointer,
// slice, array or map type.
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
	case catalog.KindPointer:
		body = append(body,
			jen.If(jen.Id("x").Op("==").Nil()).Block(jen.Return(jen.Qual(GojaPath, "Null").Call())),
			jen.Return(w.toJS(gt.Elem, jen.Op("*").Id("x"), method)))
	case catalog.KindSlice, catalog.KindArray:
		body = append(body,
			jen.Id("vals").Op(":=").Make(jen.Index().Any(), jen.Len(jen.Id("x"))),
			jen.For(jen.List(jen.Id("i"), jen.Id("e")).Op(":=").Range().Id("x")).Block(
				jen.Id("vals").Index(jen.Id("i")).Op("=").Add(w.toJS(gt.Elem, jen.Id("e"), method))),
			jen.Return(rt.Clone().Dot("NewArray").Call(jen.Id("vals").Op("..."))))
	case catalog.KindMap:
		// Keys in sorted order, so the object's key order does not depend on map iteration.
		body = append(body,
			jen.Id("o").Op(":=").Add(rt).Dot("NewObject").Call(),
			jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(jen.Id("x")))).Block(
				jen.Id("_").Op("=").Id("o").Dot("Set").Call(jen.String().Call(jen.Id("k")), w.toJS(gt.Elem, jen.Id("x").Index(jen.Id("k")), method))),
			jen.Return(jen.Id("o")))
	default:
		panic("emit: no JavaScript form for " + gt.String())
	}
	return jen.Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("x").Add(GoTypeCode(gt))).Qual(GojaPath, "Value").Block(body...)
}

// errorToJS declares the helper that turns a Go error into a plain JS object
// {name: "Error", message}, or null.
func (w *facadeWriter) errorToJS() string {
	const name = "cordisErrorToJS"
	w.helpers[name] = jen.Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Err().Error()).Qual(GojaPath, "Value").Block(
		jen.If(jen.Err().Op("==").Nil()).Block(jen.Return(jen.Qual(GojaPath, "Null").Call())),
		jen.Id("o").Op(":=").Add(runtimeCall()).Dot("NewObject").Call(),
		jen.Id("_").Op("=").Id("o").Dot("Set").Call(jen.Lit("name"), jen.Lit("Error")),
		jen.Id("_").Op("=").Id("o").Dot("Set").Call(jen.Lit("message"), jen.Err().Dot("Error").Call()),
		jen.Return(jen.Id("o")))
	return name
}

// disposerToJS declares the helper that exposes a returned func() as a JS function that
// calls it off the lock, or null.
func (w *facadeWriter) disposerToJS() string {
	const name = "cordisDisposerToJS"
	w.helpers[name] = jen.Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("method").String(), jen.Id("fn").Func().Params()).Qual(GojaPath, "Value").Block(
		jen.If(jen.Id("fn").Op("==").Nil()).Block(jen.Return(jen.Qual(GojaPath, "Null").Call())),
		jen.Return(jen.Id("r").Dot("Func").Call(jen.Id("method"), jen.Func().Params(jen.Qual(GojaPath, "FunctionCall")).Qual(GojaPath, "Value").Block(
			jen.Id("r").Dot("Unlocked").Call(jen.Id("fn")),
			jen.Return(undefined())))))
	return name
}

// fromJS converts the goja.Value v to the Go type gt (under the realm lock), throwing a
// TypeError that names path when v does not fit. It is one conversion: a value that needs
// a helper gets a fresh sandbox.Budget, which bounds everything the conversion produces.
func (w *facadeWriter) fromJS(gt *catalog.GoType, v, path jen.Code) jen.Code {
	return w.fromJSIn(gt, nil, v, path)
}

// idB is the budget every fromJS helper has in scope.
var idB = jen.Id("b")

// fromJSIn is fromJS inside a conversion whose budget is b (nil at the top, where one is
// made only if needed): strings take their bytes from it, arrays and maps their elements,
// so a value that is small in the JavaScript heap cannot make Go copy without end.
func (w *facadeWriter) fromJSIn(gt *catalog.GoType, b, v, path jen.Code) jen.Code {
	if fn, native := argFunc(w.plainBasic(gt)); fn != "" {
		if native == "string" && b != nil {
			return convertTo(gt, native, jen.Add(b).Dot("String").Call(v, path))
		}
		return w.readBasic(gt, toFunc(fn), native, []jen.Code{idR, v, path}, jen.Lit(""), path)
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
	name := w.helper("FromJS", gt, func(name string) jen.Code { return w.fromJSHelper(name, gt) })
	if b == nil {
		b = jen.Qual(SandboxPath, "NewBudget").Call(idR)
	}
	return jen.Id(name).Call(idR, b, v, path)
}

// fromJSHelper declares func name(r *sandbox.Realm, b *sandbox.Budget, v goja.Value,
// path string) T.
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
						jen.Id("r").Dot("Throw").Call(jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: %w"), path, jen.Err())))),
				jen.Return(jen.Id("out")),
			}
		default:
			body = w.namedFromJS(gt, typ)
		}
	case catalog.KindPointer:
		body = []jen.Code{
			jen.If(isAbsent(v)).Block(jen.Return(jen.Nil())),
			jen.Id("x").Op(":=").Add(w.fromJSIn(gt.Elem, idB, v, path)),
			jen.Return(jen.Op("&").Id("x")),
		}
	case catalog.KindSlice, catalog.KindArray:
		elem := w.fromJSIn(gt.Elem, idB, jen.Id("e"), jen.Id("path").Op("+").Lit("[").Op("+").Qual("strconv", "Itoa").Call(jen.Id("i")).Op("+").Lit("]"))
		body = []jen.Code{jen.Id("vs").Op(":=").Add(idB).Dot("Slice").Call(v, path)}
		if gt.Kind == catalog.KindSlice {
			// undefined or null is a nil slice, as encoding/json decodes null.
			body = append([]jen.Code{jen.If(isAbsent(v)).Block(jen.Return(jen.Nil()))}, body...)
		}
		if gt.Kind == catalog.KindArray {
			body = append(body,
				jen.Var().Id("out").Add(typ),
				jen.If(jen.Len(jen.Id("vs")).Op("!=").Len(jen.Id("out"))).Block(
					jen.Id("r").Dot("Throw").Call(jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: expected an array of %d elements, got %d"), path, jen.Len(jen.Id("out")), jen.Len(jen.Id("vs"))))))
		} else {
			body = append(body, jen.Id("out").Op(":=").Make(typ, jen.Len(jen.Id("vs"))))
		}
		body = append(body,
			jen.For(jen.List(jen.Id("i"), jen.Id("e")).Op(":=").Range().Id("vs")).Block(jen.Id("out").Index(jen.Id("i")).Op("=").Add(elem)),
			jen.Return(jen.Id("out")))
	case catalog.KindMap:
		body = []jen.Code{
			jen.If(isAbsent(v)).Block(jen.Return(jen.Nil())), // a nil map, as for a slice
			jen.Id("o").Op(":=").Qual(SandboxPath, "ToObject").Call(idR, v, path),
			jen.Id("out").Op(":=").Add(typ).Values(),
			jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Add(idB).Dot("Keys").Call(jen.Id("o"), path)).Block(
				jen.Id("out").Index(convertTo(gt.Key, "string", jen.Id("k"))).Op("=").Add(
					w.fromJSIn(gt.Elem, idB, jen.Id("o").Dot("Get").Call(jen.Id("k")), jen.Id("path").Op("+").Lit(".").Op("+").Id("k")))),
			jen.Return(jen.Id("out")),
		}
	default:
		panic("emit: no conversion from JavaScript to " + gt.String())
	}
	return jen.Func().Id(name).Params(jen.Id("r").Op("*").Qual(SandboxPath, "Realm"), jen.Id("b").Op("*").Qual(SandboxPath, "Budget"), jen.Id("v").Qual(GojaPath, "Value"), jen.Id("path").String()).Add(typ).Block(body...)
}

// namedFromJS converts to a catalogued struct or enum.
//
// A struct is read field by field as encoding/json decodes one: a field the object leaves
// out, or sets to undefined or null, keeps Go's zero value (a slice, map or pointer is nil),
// so JavaScript need not spell out an empty id or tags; a field of the wrong type is a
// TypeError naming its path. An enum is checked against its constants, and its zero value
// "" is always accepted, constant or not: it is what Go sends for an unset field, so a
// struct Go gave JavaScript goes back unchanged.
func (w *facadeWriter) namedFromJS(gt *catalog.GoType, typ jen.Code) []jen.Code {
	t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name})
	if t.Kind == catalog.TypeEnum {
		return w.enumFromJS(t, gt, typ)
	}
	body := []jen.Code{
		jen.Id("o").Op(":=").Qual(SandboxPath, "ToObject").Call(idR, jen.Id("v"), jen.Id("path")),
		jen.Var().Id("out").Add(typ),
	}
	for _, f := range t.Fields {
		conv := w.fromJSIn(f.Go, idB, jen.Id("x"), jen.Id("path").Op("+").Lit("."+f.JSName))
		body = append(body, jen.If(jen.Id("x").Op(":=").Id("o").Dot("Get").Call(jen.Lit(f.JSName)), jen.Op("!").Parens(isAbsent(jen.Id("x")))).Block(
			jen.Id("out").Dot(f.Name).Op("=").Add(conv)))
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
		jen.Id("r").Dot("Throw").Call(jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: expected one of "+want+", got %q"), jen.Id("path"), jen.Id("x"))),
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

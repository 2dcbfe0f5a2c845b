package emit

import (
	"fmt"
	"strings"

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
	case gt.Is(KitPath, "Session"):
		return &catalog.GoType{Kind: catalog.KindBasic, Name: "string"}
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
func (w *facadeWriter) basicFunc(gt, basic *catalog.GoType, prefix string) string {
	fn := w.bind(prefix + basicKind(basic))
	if gt.Is("time", "Duration") {
		return fn
	}
	return fn + "[" + w.goType(gt) + "]"
}

// argFunc is the bind.Arg that reads parameter p of method.
func (w *facadeWriter) argFunc(p catalog.Param) string {
	if p.Go.Kind == catalog.KindFunc {
		return w.helper("Arg", p.Go, func(name string) string { return w.callbackArg(name, p.Go) })
	}
	if basic := w.plainBasic(p.Go); basic != nil {
		return w.basicFunc(p.Go, basic, "")
	}
	return call(w.bind("ArgFrom"), w.fromFunc(p.Go))
}

// callbackArg declares the bind.Arg of a callback parameter of type gt: the JavaScript
// function, wrapped as the Go callback, each call delivered with emit semantics
// (bind.DeliverEmit: its result and promise ignored, a failure reported).
func (w *facadeWriter) callbackArg(name string, gt *catalog.GoType) string {
	var params, vals []string
	for i, pt := range gt.Params {
		x := fmt.Sprintf("x%d", i)
		params = append(params, x+" "+w.goType(pt))
		vals = append(vals, w.toJS(pt, x, "a callback argument"))
	}
	deliver := call(w.bind("DeliverEmit"), "r", "what", "cb",
		funcLit(signature("", nil, []string{w.gojaValues()}), "return "+values(w.gojaValues(), vals...)))
	return funcLit(signature(" "+name, []string{w.realmParam(), "v " + w.gojaValue(), "method, param string"}, []string{w.goType(gt)}),
		"cb := "+call(w.bind("Callback"), "r", "v", "method", "param"),
		"what := "+binary("+", lit("the "), "param", lit(" callback of "), "method"),
		"return "+funcLit(signature("", params, nil), deliver))
}

// fromFunc is the bind.From that converts a JavaScript value to gt at the top of one
// conversion (a listener's result, an argument): a helper that needs a budget gets a
// fresh one (bind.Budgeted).
func (w *facadeWriter) fromFunc(gt *catalog.GoType) string {
	if basic := w.plainBasic(gt); basic != nil {
		return w.basicFunc(gt, basic, "To")
	}
	switch {
	case gt.Kind == catalog.KindStruct:
		return w.bind("Nothing")
	case gt.Is("encoding/json", "RawMessage"):
		return w.q(SandboxPath, "ToJSON")
	}
	return call(w.bind("Budgeted"), w.convFunc(gt))
}

// convFunc is the bind.Conv that converts a JavaScript value to gt inside a conversion,
// taking from its budget: a slice, map or pointer composed by bind, a catalogued struct,
// enum, value type, array, error, any or time.Time through a generated helper.
func (w *facadeWriter) convFunc(gt *catalog.GoType) string {
	if basic := w.plainBasic(gt); basic != nil {
		if basic.Name == "string" {
			return w.bind("Text") + "[" + w.goType(gt) + "]"
		}
		return call(w.bind("Unbudgeted"), w.basicFunc(gt, basic, "To"))
	}
	switch {
	case gt.Kind == catalog.KindStruct:
		return call(w.bind("Unbudgeted"), w.bind("Nothing"))
	case gt.Is("encoding/json", "RawMessage"):
		return w.bind("RawJSON")
	case gt.Kind == catalog.KindSlice:
		return call(w.bind("FromSlice"), w.convFunc(gt.Elem))
	case gt.Kind == catalog.KindMap:
		return call(w.bind("FromMap")+"["+w.goType(gt.Key)+"]", w.convFunc(gt.Elem))
	case gt.Kind == catalog.KindPointer:
		return call(w.bind("FromPtr"), w.convFunc(gt.Elem))
	}
	return w.helper("FromJS", gt, func(name string) string { return w.fromJSHelper(name, gt) })
}

// resultFunc is the bind.Result that builds the JavaScript value of a Go value of type gt
// (a method's result, a waterfall's next result). method names disposers in errors.
func (w *facadeWriter) resultFunc(gt *catalog.GoType, method string) string {
	switch {
	case gt.Kind == catalog.KindBasic && gt.Name == "error":
		return w.bind("ErrorValue")
	case gt.Kind == catalog.KindBasic:
		return w.bind("Value") + "[" + w.goType(gt) + "]"
	case gt.Kind == catalog.KindAny:
		return w.bind("FromAny")
	case gt.Kind == catalog.KindFunc:
		return call(w.bind("Disposer"), lit(method+" disposer"))
	case gt.Is("time", "Duration"):
		return w.bind("Millis")
	case gt.Is("time", "Time"):
		return w.bind("Data") + "[" + w.goType(gt) + "]"
	case gt.Is("encoding/json", "RawMessage"):
		return w.q(SandboxPath, "FromJSON")
	case gt.Kind == catalog.KindSlice:
		return call(w.bind("SliceResult"), w.resultFunc(gt.Elem, method))
	case gt.Kind == catalog.KindMap:
		return call(w.bind("MapResult")+"["+w.goType(gt.Key)+"]", w.resultFunc(gt.Elem, method))
	case gt.Kind == catalog.KindPointer:
		return call(w.bind("PtrResult"), w.resultFunc(gt.Elem, method))
	}
	return w.helper("ToJS", gt, func(name string) string {
		inline := gt.Kind == catalog.KindStruct
		if gt.Kind == catalog.KindNamed {
			t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name})
			inline = t != nil && t.Kind != catalog.TypeStruct // a value type: what toJS writes inline
		}
		if inline {
			return funcLit(w.toJSSignature(name, gt), "return "+w.toJS(gt, "x", method))
		}
		return w.toJSHelper(name, gt, method)
	})
}

// toJSSignature is the signature of a helper converting a Go x of type gt to JavaScript.
func (w *facadeWriter) toJSSignature(name string, gt *catalog.GoType) string {
	return signature(" "+name, []string{w.realmParam(), "x " + w.goType(gt)}, []string{w.gojaValue()})
}

// convertString converts v, a string, to gt when gt is a named string type.
func (w *facadeWriter) convertString(gt *catalog.GoType, v string) string {
	if gt.Kind == catalog.KindBasic && gt.Name == "string" {
		return v
	}
	return call(w.goType(gt), v)
}

// isAbsent is v == nil || goja.IsUndefined(v) || goja.IsNull(v).
func (w *facadeWriter) isAbsent(v string) string {
	return v + " == nil || " + call(w.q(GojaPath, "IsUndefined"), v) + " || " + call(w.q(GojaPath, "IsNull"), v)
}

// helper returns the name of the conversion function for one direction and Go type,
// declaring it with build on first use.
func (w *facadeWriter) helper(dir string, gt *catalog.GoType, build func(name string) string) string {
	key := dir + " " + gt.String()
	if name, ok := w.byKey[key]; ok {
		return name
	}
	base := "cordis" + dir + strings.TrimPrefix(goTypeVarName(gt), "cordis")
	name := base
	for i := 2; ; i++ {
		if _, taken := w.helpers[name]; !taken {
			break
		}
		name = fmt.Sprintf("%s%d", base, i)
	}
	w.byKey[key] = name
	w.helpers[name] = "" // reserve it: build may recurse into other helpers
	w.helpers[name] = build(name)
	return name
}

// toJS converts the Go value x of type gt to a goja.Value (under the realm lock). method
// names disposers in error messages.
func (w *facadeWriter) toJS(gt *catalog.GoType, x, method string) string {
	switch gt.Kind {
	case catalog.KindBasic:
		if gt.Name == "error" {
			return call(w.bind("ErrorValue"), "r", x)
		}
		return call(w.bind("Value"), "r", x)
	case catalog.KindAny:
		return call(w.bind("FromAny"), "r", x)
	case catalog.KindStruct:
		return call(w.bind("PlainObject"), "r")
	case catalog.KindFunc:
		return call(w.bind("DisposerValue"), "r", lit(method+" disposer"), x)
	case catalog.KindSlice:
		return call(w.bind("SliceValue"), "r", x, w.resultFunc(gt.Elem, method))
	case catalog.KindMap:
		return call(w.bind("MapValue"), "r", x, w.resultFunc(gt.Elem, method))
	case catalog.KindPointer:
		return call(w.bind("PtrValue"), "r", x, w.resultFunc(gt.Elem, method))
	case catalog.KindNamed:
		switch gt.Pkg + "." + gt.Name {
		case "time.Duration":
			// Milliseconds, as bind.Duration reads them.
			return call(w.bind("Millis"), "r", x)
		case "time.Time":
			return call(w.bind("FromAny"), "r", x)
		case KitPath + ".Session":
			return call(w.bind("Value"), "r", call("string", x))
		case "encoding/json.RawMessage":
			return call(w.q(SandboxPath, "FromJSON"), "r", x)
		}
		t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name})
		if t == nil {
			panic("emit: no shape for " + gt.String())
		}
		if t.Kind != catalog.TypeStruct {
			return w.toJS(t.Underlying, call(w.goType(t.Underlying), x), method)
		}
	}
	name := w.helper("ToJS", gt, func(name string) string { return w.toJSHelper(name, gt, method) })
	return call(name, "r", x)
}

// toJSHelper declares func name(r *sandbox.Realm, x T) goja.Value for a struct or an
// array type (slices, maps and pointers are bind's SliceValue, MapValue and PtrValue).
func (w *facadeWriter) toJSHelper(name string, gt *catalog.GoType, method string) string {
	var body []string
	switch gt.Kind {
	case catalog.KindNamed: // a struct: a plain object, field by field
		t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name})
		var props []string
		for _, f := range t.Fields {
			props = append(props, call(w.bind("Prop"), lit(f.JSName), w.toJS(f.Go, "x."+f.Name, method)))
		}
		body = append(body, "return "+callLines(w.bind("PlainObject"), "r", props))
	case catalog.KindArray: // x is the helper's parameter, so x[:] is addressable
		body = append(body, "return "+call(w.bind("SliceValue"), "r", "x[:]", w.resultFunc(gt.Elem, method)))
	default:
		panic("emit: no JavaScript form for " + gt.String())
	}
	return funcLit(w.toJSSignature(name, gt), body...)
}

// fromJS converts the goja.Value v to the Go type gt (under the realm lock), throwing a
// TypeError that names path when v does not fit. It is one conversion: a value that needs
// a helper gets a fresh bind.Budget, which bounds everything the conversion produces.
func (w *facadeWriter) fromJS(gt *catalog.GoType, v, path string) string {
	return w.fromJSIn(gt, "", v, path)
}

// fromJSIn is fromJS inside a conversion whose budget is b ("" at the top, where one is
// made only if needed): strings take their bytes from it, arrays and maps their elements,
// so a value that is small in the JavaScript heap cannot make Go copy without end.
func (w *facadeWriter) fromJSIn(gt *catalog.GoType, b, v, path string) string {
	if basic := w.plainBasic(gt); basic != nil {
		if basic.Name == "string" && b != "" {
			return w.convertString(gt, call(b+".String", v, path))
		}
		return call(w.basicFunc(gt, basic, "To"), "r", v, path)
	}
	switch gt.Kind {
	case catalog.KindStruct:
		return "struct{}{}"
	case catalog.KindBasic, catalog.KindAny: // error, any
	case catalog.KindNamed:
		switch gt.Pkg + "." + gt.Name {
		case "encoding/json.RawMessage":
			if b != "" {
				return call(b+".JSON", v, path)
			}
			return call(w.q(SandboxPath, "ToJSON"), "r", v, path)
		case "time.Time":
		case KitPath + ".Session":
			return call(w.goType(gt), w.fromJSIn(&catalog.GoType{Kind: catalog.KindBasic, Name: "string"}, b, v, path))
		default:
			t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name})
			if t.Kind == catalog.TypeValue {
				return call(w.goType(gt), w.fromJSIn(t.Underlying, b, v, path))
			}
		}
	}
	if b == "" {
		b = call(w.bind("NewBudget"), "r")
	}
	return call(w.convFunc(gt), "r", b, v, path)
}

// fromJSHelper declares func name(r *sandbox.Realm, b *bind.Budget, v goja.Value,
// path string) T, a bind.Conv, for a catalogued struct, enum or value type, an array, an
// error, any or time.Time (slices, maps and pointers are bind's FromSlice, FromMap and
// FromPtr).
func (w *facadeWriter) fromJSHelper(name string, gt *catalog.GoType) string {
	typ := w.goType(gt)
	var body []string
	switch gt.Kind {
	case catalog.KindBasic, catalog.KindAny, catalog.KindNamed:
		switch {
		case gt.Kind == catalog.KindBasic: // error: an Error's message, or a string
			body = w.errorFromJS()
		case gt.Kind == catalog.KindAny || gt.Is("time", "Time"):
			// Through JSON: plain data only. undefined is the zero value.
			unmarshal := call(w.q("encoding/json", "Unmarshal"), call("b.JSON", "v", "path"), "&out")
			body = []string{
				"var out " + typ,
				ifBlock("!("+w.isAbsent("v")+")",
					ifBlock("err := "+unmarshal+"; err != nil", w.throwf(`"%s: %w"`, "path", "err"))),
				"return out",
			}
		default:
			body = w.namedFromJS(gt, typ)
		}
	case catalog.KindArray:
		elem := w.fromJSIn(gt.Elem, "b", "e", binary("+", "path", lit("["), call(w.q("strconv", "Itoa"), "i"), lit("]")))
		body = []string{
			"vs := b.Slice(v, path)",
			"var out " + typ,
			ifBlock("len(vs) != len(out)", w.throwf(lit("%s: expected an array of %d elements, got %d"), "path", "len(out)", "len(vs)")),
			"for i, e := range vs " + block("out[i] = "+elem),
			"return out",
		}
	default:
		panic("emit: no conversion from JavaScript to " + gt.String())
	}
	sig := signature(" "+name, []string{w.realmParam(), "b *" + w.bind("Budget"), "v " + w.gojaValue(), "path string"}, []string{typ})
	return funcLit(sig, body...)
}

// throwf writes bind.Throw(r, fmt.Errorf(format, args...)).
func (w *facadeWriter) throwf(format string, args ...string) string {
	return call(w.bind("Throw"), "r", call(w.q("fmt", "Errorf"), append([]string{format}, args...)...))
}

// namedFromJS converts to a catalogued struct, enum or value type.
//
// A struct is read field by field as encoding/json decodes one: a field the object leaves
// out, or sets to undefined or null, keeps Go's zero value (a slice, map or pointer is nil),
// so JavaScript need not spell out an empty id or tags; a field of the wrong type is a
// TypeError naming its path. An enum is checked against its constants, and its zero value
// "" is always accepted, constant or not: it is what Go sends for an unset field, so a
// struct Go gave JavaScript goes back unchanged.
func (w *facadeWriter) namedFromJS(gt *catalog.GoType, typ string) []string {
	t := typeByRef(w.cat, catalog.Ref{Pkg: gt.Pkg, Name: gt.Name})
	switch t.Kind {
	case catalog.TypeEnum:
		return w.enumFromJS(t, gt, typ)
	case catalog.TypeValue:
		return []string{"return " + call(typ, w.fromJSIn(t.Underlying, "b", "v", "path"))}
	}
	body := []string{
		"o := " + call(w.bind("ToObject"), "r", "v", "path"),
		"var out " + typ,
	}
	for _, f := range t.Fields {
		body = append(body, call(w.bind("Field"), "r", "b", "o", "path", lit(f.JSName), "&out."+f.Name, w.convFunc(f.Go)))
	}
	return append(body, "return out")
}

// enumFromJS reads a string and checks it against the enum's values and its zero value.
// The cases name the constants (one per value: two constants may share one), so a
// constant that goes away breaks the build instead of going unchecked.
func (w *facadeWriter) enumFromJS(t *catalog.Type, gt *catalog.GoType, typ string) []string {
	var cases, names []string
	seen := map[string]bool{}
	for _, e := range t.Enum {
		if seen[e.Value] {
			continue
		}
		seen[e.Value] = true
		cases = append(cases, w.q(gt.Pkg, e.Name))
		names = append(names, fmt.Sprintf("%q", e.Value))
	}
	want := strings.Join(names, ", ")
	if !seen[""] {
		cases = append(cases, lit(""))
		want += ` (or "" for none)`
	}
	return []string{
		"x := " + call(typ, call("b.String", "v", "path")),
		"switch x {\ncase " + strings.Join(cases, ", ") + ":\n\treturn x\n}",
		w.throwf(lit("%s: expected one of "+want+", got %q"), "path", "x"),
		"return x",
	}
}

// errorFromJS reads an error argument: undefined or null is nil, an object its message,
// anything else its string form, its bytes taken from the budget.
func (w *facadeWriter) errorFromJS() []string {
	return []string{
		ifBlock(w.isAbsent("v"), "return nil"),
		ifBlock("o, ok := v.(*"+w.q(GojaPath, "Object")+"); ok",
			"return "+call(w.q("errors", "New"), call("b.Text", call("o.Get", lit("message")), binary("+", "path", lit(".message"))))),
		"return " + call(w.q("errors", "New"), call("b.Text", "v", "path")),
	}
}

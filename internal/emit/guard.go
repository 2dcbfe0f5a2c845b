package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/cordiskit/cordiskit/catalog"
)

// KitPath is the import path of the kit.
const KitPath = "github.com/cordiskit/cordiskit/kit"

var kitEventTypes = map[catalog.Mode]string{
	catalog.ModeEmit: "Event", catalog.ModeParallel: "ParallelEvent", catalog.ModeSerial: "SerialEvent",
	catalog.ModeBail: "BailEvent", catalog.ModeWaterfall: "WaterfallEvent",
}

// guard declares func _() { … } (nil when there is nothing to guard): a statement per source symbol the catalog was built from,
// each stating the type the catalog recorded. Renaming or retyping a declaration, a
// method or a field, or changing an enum constant, then breaks `go build` of the
// generated package until gen-cordis-api runs again (the stringer trick). Doc changes
// compile; verify-cordis-api catches those.
func guard(c *catalog.Catalog) jen.Code {
	var body []jen.Code
	for _, e := range c.Events {
		targs := []jen.Code{GoTypeCode(e.Payload)}
		if e.Result != nil {
			targs = append(targs, GoTypeCode(e.Result))
		}
		body = append(body, jen.Var().Id("_").Op("*").Qual(KitPath, kitEventTypes[e.Mode]).Types(targs...).Op("=").Qual(e.Var.Pkg, e.Var.Name))
		if p := e.Payload; p.Kind == catalog.KindNamed {
			body = append(body, fieldGuards(jen.Qual(p.Pkg, p.Name), e.Params)...)
		}
	}
	for _, s := range c.Services {
		body = append(body, jen.Var().Id("_").Op("*").Qual(KitPath, "Service").Types(GoTypeCode(s.Type)).Op("=").Qual(s.Var.Pkg, s.Var.Name))
		recv := GoTypeCode(s.Type)
		if !s.Abstract && s.Type.Kind != catalog.KindPointer {
			recv = jen.Op("*").Add(recv) // the method set the binding uses
		}
		for _, m := range s.Methods {
			params := []jen.Code{recv}
			for _, p := range m.Params {
				params = append(params, GoTypeCode(p.Go))
			}
			var results []jen.Code
			for _, r := range m.Results {
				results = append(results, GoTypeCode(r.Go))
			}
			body = append(body, jen.Var().Id("_").Func().Params(params...).Params(results...).Op("=").Parens(recv).Dot(m.Name))
		}
	}
	for _, t := range c.Tools {
		body = append(body, jen.Var().Id("_").Op("*").Qual(KitPath, "ToolDecl").Types(GoTypeCode(t.Input), GoTypeCode(t.Output)).Op("=").Qual(t.Var.Pkg, t.Var.Name))
	}
	for _, t := range c.Types {
		body = append(body, typeGuard(t)...)
	}
	if len(body) == 0 {
		return nil
	}
	return jen.Comment("A compile-time guard: the build breaks here when a declaration, method, field or").Line().
		Comment("enum constant this catalog was generated from changes. Run go generate again.").Line().
		Func().Id("_").Params().Block(body...)
}

func typeGuard(t catalog.Type) []jen.Code {
	typ := jen.Qual(t.Go.Pkg, t.Go.Name)
	switch t.Kind {
	case catalog.TypeStruct:
		return append([]jen.Code{jen.Var().Id("_").Add(typ)}, fieldGuards(typ, t.Fields)...)
	case catalog.TypeEnum:
		// A constant whose value changed makes its key a second false: a compile error
		// ("duplicate key false in map literal").
		out := []jen.Code{jen.Var().Id("_").Add(typ)}
		for _, v := range t.Enum {
			out = append(out, jen.Var().Id("_").Op("=").Map(jen.Bool()).Int().Values(
				jen.False().Op(":").Lit(0), jen.Qual(t.Go.Pkg, v.Name).Op("==").Lit(v.Value).Op(":").Lit(1)))
		}
		return out
	}
	return []jen.Code{jen.Var().Id("_").Add(GoTypeCode(t.Underlying)).Op("=").Add(GoTypeCode(t.Underlying)).Call(jen.Op("*").New(typ))}
}

// fieldGuards states the type of each field: var _ string = pkg.T{}.Name.
func fieldGuards(typ jen.Code, fields []catalog.Field) []jen.Code {
	var out []jen.Code
	for _, fd := range fields {
		out = append(out, jen.Var().Id("_").Add(GoTypeCode(fd.Go)).Op("=").Add(typ).Values().Dot(fd.Name))
	}
	return out
}

// GoTypeCode renders a GoType as a Go type expression, importing what it names.
func GoTypeCode(t *catalog.GoType) *jen.Statement {
	switch t.Kind {
	case catalog.KindBasic:
		return jen.Id(t.Name)
	case catalog.KindNamed:
		return jen.Qual(t.Pkg, t.Name)
	case catalog.KindPointer:
		return jen.Op("*").Add(GoTypeCode(t.Elem))
	case catalog.KindSlice:
		return jen.Index().Add(GoTypeCode(t.Elem))
	case catalog.KindArray:
		return jen.Index(jen.Lit(int(t.Len))).Add(GoTypeCode(t.Elem))
	case catalog.KindMap:
		return jen.Map(GoTypeCode(t.Key)).Add(GoTypeCode(t.Elem))
	case catalog.KindFunc:
		params := make([]jen.Code, len(t.Params))
		for i, p := range t.Params {
			params[i] = GoTypeCode(p)
			if t.Variadic && i == len(t.Params)-1 {
				params[i] = jen.Op("...").Add(GoTypeCode(p.Elem))
			}
		}
		results := make([]jen.Code, len(t.Results))
		for i, r := range t.Results {
			results[i] = GoTypeCode(r)
		}
		return jen.Func().Params(params...).Params(results...)
	case catalog.KindAny:
		return jen.Any()
	case catalog.KindStruct:
		return jen.Struct()
	}
	panic("emit: unknown GoType kind " + string(t.Kind))
}

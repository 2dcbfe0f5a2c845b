package emit

import (
	"bytes"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/cordiskit/cordiskit/catalog"
)

// CatalogPath is the import path of package catalog, which generated code imports.
const CatalogPath = "github.com/cordiskit/cordiskit/catalog"

// CatalogGo renders catalog_gen.go: the catalog as Go data, plus a compile-time guard
// that references every declaration it was built from.
func CatalogGo(c *catalog.Catalog, pkg, header string) ([]byte, error) {
	f := jen.NewFile(pkg)
	f.HeaderComment(header)
	f.ImportName(CatalogPath, "catalog")
	f.ImportName(KitPath, "kit")

	f.Comment("Catalog is the API catalog of the declarations this package was generated from:")
	f.Comment("their events, services, tools and the type shapes their signatures reference.")
	f.Var().Id("Catalog").Op("=").Op("&").Qual(CatalogPath, "Catalog").Add(composite(
		field("Events", sliceOf("Event", c.Events, eventLit)),
		field("Services", sliceOf("Service", c.Services, serviceLit)),
		field("Tools", sliceOf("Tool", c.Tools, toolLit)),
		field("Types", sliceOf("Type", c.Types, typeLit)),
	))
	f.Line()
	guard(f, c)

	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// A kv is one field of a composite literal; a nil value leaves the field out.
type kv struct {
	key string
	val jen.Code
}

func field(key string, val jen.Code) kv { return kv{key, val} }

// composite renders {Key: value, …} one field per line, in the order given, leaving out
// zero values so the file stays readable.
func composite(fields ...kv) jen.Code {
	var items []jen.Code
	for _, f := range fields {
		if f.val != nil {
			items = append(items, jen.Id(f.key).Op(":").Add(f.val))
		}
	}
	return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, items...)
}

func sliceOf[T any](typ string, xs []T, lit func(*T) jen.Code) jen.Code {
	if len(xs) == 0 {
		return nil
	}
	items := make([]jen.Code, len(xs))
	for i := range xs {
		items[i] = lit(&xs[i])
	}
	return jen.Index().Qual(CatalogPath, typ).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, items...)
}

func str(s string) jen.Code {
	if s == "" {
		return nil
	}
	return jen.Lit(s)
}

func strs(ss []string) jen.Code {
	if len(ss) == 0 {
		return nil
	}
	items := make([]jen.Code, len(ss))
	for i, s := range ss {
		items[i] = jen.Lit(s)
	}
	return jen.Index().String().Values(items...)
}

func boolean(b bool) jen.Code {
	if !b {
		return nil
	}
	return jen.True()
}

func ref(r catalog.Ref) jen.Code {
	return jen.Qual(CatalogPath, "Ref").Values(jen.Id("Pkg").Op(":").Lit(r.Pkg), jen.Id("Name").Op(":").Lit(r.Name))
}

func raw(b []byte) jen.Code {
	if len(b) == 0 {
		return nil
	}
	return jen.Qual("encoding/json", "RawMessage").Call(jen.Lit(string(b)))
}

// pathOnly drops the line from a "path:line" source: line numbers shift with every
// unrelated edit and would make the generated catalog stale for no reason.
func pathOnly(src string) jen.Code {
	if i := strings.LastIndexByte(src, ':'); i >= 0 {
		src = src[:i]
	}
	return str(src)
}

var modeNames = map[catalog.Mode]string{
	catalog.ModeEmit: "ModeEmit", catalog.ModeParallel: "ModeParallel", catalog.ModeSerial: "ModeSerial",
	catalog.ModeBail: "ModeBail", catalog.ModeWaterfall: "ModeWaterfall",
}

func eventLit(e *catalog.Event) jen.Code {
	return composite(
		field("Name", jen.Lit(e.Name)),
		field("Mode", jen.Qual(CatalogPath, modeNames[e.Mode])),
		field("Var", ref(e.Var)),
		field("Payload", goTypeLit(e.Payload)),
		field("Result", goTypeLit(e.Result)),
		field("Params", fieldsLit(e.Params)),
		field("Signature", jen.Lit(e.Signature)),
		field("Types", strs(e.Types)),
		field("Doc", str(e.Doc)),
		field("Summary", str(e.Summary)),
		field("Source", pathOnly(e.Source)),
	)
}

func serviceLit(s *catalog.Service) jen.Code {
	return composite(
		field("Key", jen.Lit(s.Key)),
		field("Var", ref(s.Var)),
		field("Type", goTypeLit(s.Type)),
		field("TypeName", str(s.TypeName)),
		field("Abstract", boolean(s.Abstract)),
		field("Methods", sliceOf("Method", s.Methods, methodLit)),
		field("Types", strs(s.Types)),
		field("Doc", str(s.Doc)),
		field("Summary", str(s.Summary)),
		field("Source", pathOnly(s.Source)),
	)
}

func methodLit(m *catalog.Method) jen.Code {
	return composite(
		field("Name", jen.Lit(m.Name)),
		field("JSName", jen.Lit(m.JSName)),
		field("Async", boolean(m.Async)),
		field("Params", paramsLit(m.Params)),
		field("Results", paramsLit(m.Results)),
		field("Returns", str(m.Returns)),
		field("Signature", jen.Lit(m.Signature)),
		field("Types", strs(m.Types)),
		field("Doc", str(m.Doc)),
		field("Summary", str(m.Summary)),
		field("Source", pathOnly(m.Source)),
	)
}

func paramsLit(ps []catalog.Param) jen.Code {
	return sliceOf("Param", ps, func(p *catalog.Param) jen.Code {
		var role jen.Code
		switch p.Role {
		case catalog.RoleContext:
			role = jen.Qual(CatalogPath, "RoleContext")
		case catalog.RoleKit:
			role = jen.Qual(CatalogPath, "RoleKit")
		}
		return composite(
			field("Name", str(p.Name)),
			field("JSName", str(p.JSName)),
			field("Go", goTypeLit(p.Go)),
			field("JS", str(p.JS)),
			field("Role", role),
		)
	})
}

func fieldsLit(fs []catalog.Field) jen.Code {
	return sliceOf("Field", fs, func(f *catalog.Field) jen.Code {
		return composite(
			field("Name", jen.Lit(f.Name)),
			field("JSName", jen.Lit(f.JSName)),
			field("JSONName", jen.Lit(f.JSONName)),
			field("Go", goTypeLit(f.Go)),
			field("JS", str(f.JS)),
			field("Optional", boolean(f.Optional)),
			field("Doc", str(f.Doc)),
		)
	})
}

func toolLit(t *catalog.Tool) jen.Code {
	return composite(
		field("Name", jen.Lit(t.Name)),
		field("Var", ref(t.Var)),
		field("Input", goTypeLit(t.Input)),
		field("Output", goTypeLit(t.Output)),
		field("InputSchema", raw(t.InputSchema)),
		field("OutputSchema", raw(t.OutputSchema)),
		field("Doc", str(t.Doc)),
		field("Summary", str(t.Summary)),
		field("Source", pathOnly(t.Source)),
	)
}

var typeKindNames = map[catalog.TypeKind]string{
	catalog.TypeStruct: "TypeStruct", catalog.TypeEnum: "TypeEnum", catalog.TypeValue: "TypeValue",
}

func typeLit(t *catalog.Type) jen.Code {
	var enum jen.Code
	if len(t.Enum) > 0 {
		enum = sliceOf("EnumValue", t.Enum, func(v *catalog.EnumValue) jen.Code {
			return composite(field("Name", jen.Lit(v.Name)), field("Value", jen.Lit(v.Value)), field("Doc", str(v.Doc)))
		})
	}
	return composite(
		field("Name", jen.Lit(t.Name)),
		field("Go", ref(t.Go)),
		field("Kind", jen.Qual(CatalogPath, typeKindNames[t.Kind])),
		field("Underlying", goTypeLit(t.Underlying)),
		field("Fields", fieldsLit(t.Fields)),
		field("Enum", enum),
		field("JS", str(t.JS)),
		field("Decl", jen.Lit(t.Decl)),
		field("Refs", strs(t.Refs)),
		field("Doc", str(t.Doc)),
		field("Summary", str(t.Summary)),
		field("Source", pathOnly(t.Source)),
	)
}

var kindNames = map[catalog.Kind]string{
	catalog.KindBasic: "KindBasic", catalog.KindNamed: "KindNamed", catalog.KindPointer: "KindPointer",
	catalog.KindSlice: "KindSlice", catalog.KindArray: "KindArray", catalog.KindMap: "KindMap",
	catalog.KindFunc: "KindFunc", catalog.KindAny: "KindAny", catalog.KindStruct: "KindStruct",
}

// goTypeLit renders a GoType literal on one line: it is small and nests.
func goTypeLit(t *catalog.GoType) jen.Code {
	if t == nil {
		return nil
	}
	items := []jen.Code{jen.Id("Kind").Op(":").Qual(CatalogPath, kindNames[t.Kind])}
	add := func(key string, val jen.Code) {
		if val != nil {
			items = append(items, jen.Id(key).Op(":").Add(val))
		}
	}
	add("Pkg", str(t.Pkg))
	add("Name", str(t.Name))
	add("Elem", goTypeLit(t.Elem))
	add("Key", goTypeLit(t.Key))
	if t.Len != 0 {
		add("Len", jen.Lit(int(t.Len)))
	}
	if len(t.Params) > 0 {
		add("Params", goTypesLit(t.Params))
	}
	if len(t.Results) > 0 {
		add("Results", goTypesLit(t.Results))
	}
	add("Variadic", boolean(t.Variadic))
	return jen.Op("&").Qual(CatalogPath, "GoType").Values(items...)
}

func goTypesLit(ts []*catalog.GoType) jen.Code {
	items := make([]jen.Code, len(ts))
	for i, t := range ts {
		items[i] = goTypeLit(t)
	}
	return jen.Index().Op("*").Qual(CatalogPath, "GoType").Values(items...)
}

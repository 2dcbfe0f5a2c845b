package tooldecl

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/kit"
)

// Bind returns the registry entry of the tool d declares, run by fn: the description and
// JSON Schemas Schema reads from cat, and the arguments decoded strictly into In by
// [kit.ToolDecl.Bind] (package doc, "Binding"). It fails as Schema does, so a model never
// sees a tool without a description or with a schema for other types.
//
//	tool, err := tooldecl.Bind(cordisapi.Catalog, agent.Summarize, summarize)
//	if err != nil { … }
//	_, err = tools.Register(c, tool)
func Bind[In, Out any](cat *catalog.Catalog, d *kit.ToolDecl[In, Out], fn func(ctx context.Context, in In) (Out, error)) (kit.Tool, error) {
	if fn == nil {
		return kit.Tool{}, errors.New("tooldecl: Bind needs the function that runs the tool")
	}
	schema, err := Schema(cat, d)
	if err != nil {
		return kit.Tool{}, err
	}
	return d.Bind(schema, fn), nil
}

// Schema returns the schema [kit.ToolDecl.Bind] takes for a tool declared in Go and
// catalogued by gen-cordis-api: its name, the declaration's doc comment as the
// description, and the input and output JSON Schemas derived from In and Out.
//
// A tool cat does not hold, or holds with other input or output types (a catalog
// generated before the declaration changed), is an error saying how to fix it.
func Schema[In, Out any](cat *catalog.Catalog, d *kit.ToolDecl[In, Out]) (kit.ToolSchema, error) {
	if cat == nil || d == nil {
		return kit.ToolSchema{}, errors.New("tooldecl: a declared tool's schema needs the generated catalog (cordisapi.Catalog) and the tool's declaration (var X = kit.NewTool[In, Out](name))")
	}
	ct, ok := cat.Tool(d.Name())
	if !ok {
		return kit.ToolSchema{}, fmt.Errorf("tooldecl: tool %q is not in the catalog: declare it as a package-level variable (var X = kit.NewTool[In, Out](%q)) in a package gen-cordis-api scans, run go generate, and pass the catalog it writes", d.Name(), d.Name())
	}
	for _, side := range []struct {
		what string
		want *catalog.GoType
		got  reflect.Type
	}{
		{"input", ct.Input, reflect.TypeFor[In]()},
		{"output", ct.Output, reflect.TypeFor[Out]()},
	} {
		if !sameNamed(side.want, side.got) {
			return kit.ToolSchema{}, fmt.Errorf("tooldecl: tool %q is declared with %s type %s, but the catalog describes %s (declared at %s): the catalog is stale — run go generate",
				d.Name(), side.what, goName(side.got), side.want, ct.Source)
		}
	}
	return kit.ToolSchema{Name: ct.Name, Description: ct.Doc, InputSchema: ct.InputSchema, OutputSchema: ct.OutputSchema}, nil
}

// sameNamed reports whether a Go type has the named type the catalog records (both
// looked at through pointers). Unnamed catalog types (a map, a slice) are not compared:
// their schema follows from the element types, which the generator checked.
func sameNamed(want *catalog.GoType, got reflect.Type) bool {
	named := want.Named()
	if named == nil {
		return true
	}
	for got.Kind() == reflect.Pointer && got.Name() == "" {
		got = got.Elem()
	}
	return got.PkgPath() == named.Pkg && got.Name() == named.Name
}

// goName names a Go type as a catalog does: with its full import path.
func goName(t reflect.Type) string {
	if t.Name() != "" && t.PkgPath() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	return t.String()
}

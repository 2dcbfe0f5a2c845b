package emit

import (
	"go/format"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/internal/golden"
)

// gofmted fails t unless src is what gofmt makes of it: the text writers of
// catalogtext.go lay code out as gofmt does, and catalog_gen.go skips gofmt.
func gofmted(t *testing.T, name string, src []byte) {
	t.Helper()
	formatted, err := format.Source(src)
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", name, err, src)
	}
	if string(formatted) != string(src) {
		t.Errorf("%s is not laid out as gofmt lays it out:\n%s", name, golden.Diff("gofmt", formatted, "written", src))
	}
}

// TestCatalogTextIsGofmted holds the text writers to gofmt's layout on the shapes the
// catalog has: runs of one-line fields between fields that span lines, keys of unequal
// width (not ASCII too), nested lists, empty literals and var blocks.
func TestCatalogTextIsGofmted(t *testing.T) {
	list := lines("[]catalog.Field", []string{compact(field("Name", `"a"`), field("Doc", `"x\ty"`)), "cordisFieldB"})
	nested := lines("[]catalog.Method", []string{composite("catalog.Method", field("Name", `"M"`), field("Params", list), field("Ünïcode", "1"))})
	for name, lit := range map[string]string{
		"one-line fields":        composite("catalog.Event", field("Name", `"n"`), field("JSName", `"j"`), field("Source", `"s"`)),
		"a list in the middle":   composite("catalog.Event", field("Name", `"n"`), field("Params", list), field("Signature", `"s"`), field("Doc", `"d"`)),
		"a list first and last":  composite("catalog.Event", field("Params", list), field("Name", `"n"`), field("Types", list)),
		"lists only":             composite("&catalog.Catalog", field("Events", list), field("Tools", nested)),
		"one field":              composite("catalog.Ref", field("Pkg", `"p"`)),
		"left out":               composite("catalog.Tool", field("Name", ""), field("Doc", "")),
		"not ASCII":              composite("catalog.Event", field("Ünïcode", `"ü"`), field("N", `"…"`), field("Name", `"n"`)),
		"nested":                 nested,
		"one-line values":        literalLine("[]*catalog.GoType", []string{"a", "b"}) + "[0]",
		"compact, all left out":  "catalog.Param" + compact(field("Name", "")),
		"a list of one-liners":   lines("[]string", []string{`"a"`, `"bb"`}),
		"a composite in a slice": lines("[]catalog.Event", []string{composite("", field("Name", `"n"`), field("Params", list))}),
	} {
		gofmted(t, name, []byte("package x\n\nvar v = "+lit+"\n"))
	}
	gofmted(t, "var block", []byte("package x\n\n"+varBlock("Some variables.", map[string]string{
		"cordisA": "&catalog.GoType{Kind: catalog.KindAny}", "cordisÜnïcode": "1", "cordisLongerName": `catalog.Param{Name: "x"}`,
	})+"\n"))
	gofmted(t, "a var block of one", []byte("package x\n\n"+varBlock("One.", map[string]string{"cordisA": "1"})+"\n"))
}

// TestCatalogGoIsGofmted renders a catalog with every kind of entry, Go type and guard
// statement and checks the file is gofmt'ed.
func TestCatalogGoIsGofmted(t *testing.T) {
	str := &catalog.GoType{Kind: catalog.KindBasic, Name: "string"}
	named := &catalog.GoType{Kind: catalog.KindNamed, Pkg: "example.com/p", Name: "In"}
	fn := &catalog.GoType{Kind: catalog.KindFunc, Params: []*catalog.GoType{str, {Kind: catalog.KindSlice, Elem: str}}, Results: []*catalog.GoType{{Kind: catalog.KindBasic, Name: "error"}}, Variadic: true}
	types := []*catalog.GoType{
		{Kind: catalog.KindPointer, Elem: named}, {Kind: catalog.KindArray, Len: 3, Elem: str},
		{Kind: catalog.KindMap, Key: str, Elem: &catalog.GoType{Kind: catalog.KindAny}}, {Kind: catalog.KindStruct}, fn,
	}
	ctx := catalog.Param{Name: "ctx", Go: &catalog.GoType{Kind: catalog.KindNamed, Pkg: "context", Name: "Context"}, Role: catalog.RoleContext}
	var params []catalog.Param
	for i, gt := range types {
		params = append(params, catalog.Param{Name: string(rune('a' + i)), JSName: string(rune('a' + i)), Go: gt, JS: "any"})
	}
	fieldQ := catalog.Field{Name: "Q", JSName: "q", JSONName: "q", Go: str, JS: "string", Doc: "The query,\n\"quoted\"\tand tabbed."}
	c := &catalog.Catalog{
		Events: []catalog.Event{
			{Name: "a/ev-ént", Mode: catalog.ModeWaterfall, Var: catalog.Ref{Pkg: "example.com/p", Name: "Ev"}, Payload: named, Result: str,
				Params: []catalog.Field{fieldQ}, Signature: "'a/ev-ént'(q: string): string", Types: []string{"In"}, Doc: "Ev …", Summary: "Ev.", Source: "p/p.go:3"},
			{Name: "b", Mode: catalog.ModeEmit, Var: catalog.Ref{Pkg: "example.com/p", Name: "B"}, Payload: named, Params: []catalog.Field{fieldQ}},
		},
		Services: []catalog.Service{{Key: "svc", Var: catalog.Ref{Pkg: "example.com/p", Name: "Svc"}, Type: &catalog.GoType{Kind: catalog.KindPointer, Elem: named}, TypeName: "In",
			Abstract: true, Methods: []catalog.Method{
				{Name: "M", JSName: "m", Async: true, Params: append([]catalog.Param{ctx}, params...), Results: []catalog.Param{{Go: str, JS: "string"}}, Signature: "m()"},
				{Name: "N", JSName: "n", Params: []catalog.Param{ctx}, Signature: "n()", Doc: "N.", Source: "p/p.go:9"},
			}}},
		Tools: []catalog.Tool{{Name: "t", Var: catalog.Ref{Pkg: "example.com/p", Name: "T"}, Input: named, Output: str,
			InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(`{"type":"string"}`), Doc: "T."}},
		Types: []catalog.Type{
			{Name: "In", Go: catalog.Ref{Pkg: "example.com/p", Name: "In"}, Kind: catalog.TypeStruct, Fields: []catalog.Field{fieldQ, {Name: "O", JSName: "o", JSONName: "o", Go: str, Optional: true}}, Decl: "interface In {}"},
			{Name: "Mode", Go: catalog.Ref{Pkg: "example.com/p", Name: "Mode"}, Kind: catalog.TypeEnum, Underlying: str,
				Enum: []catalog.EnumValue{{Name: "A", Value: "a", Doc: "A."}, {Name: "B", Value: "b"}}, Decl: "type Mode = 'a' | 'b'", Refs: []string{"In"}},
			{Name: "ID", Go: catalog.Ref{Pkg: "example.com/p", Name: "ID"}, Kind: catalog.TypeValue, Underlying: str, Decl: "type ID = string"},
		},
	}
	for name, c := range map[string]*catalog.Catalog{"every kind": c, "empty": {}, "events only": {Events: c.Events}} {
		src, err := CatalogGo(c, "api", "Code generated by test; DO NOT EDIT.")
		if err != nil {
			t.Fatal(err)
		}
		gofmted(t, name, src)
	}
}

package emit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
)

// enumCatalog has a tool whose input has an enum field with documented constants, and an
// abstract seam.
func enumCatalog() *catalog.Catalog {
	str := &catalog.GoType{Kind: catalog.KindBasic, Name: "string"}
	in := &catalog.GoType{Kind: catalog.KindNamed, Pkg: "p", Name: "In"}
	style := &catalog.GoType{Kind: catalog.KindNamed, Pkg: "p", Name: "Style"}
	return &catalog.Catalog{
		Services: []catalog.Service{{Key: "fs", Var: catalog.Ref{Pkg: "p", Name: "FS"}, TypeName: "FileSystem", Abstract: true, Doc: "FS is the filesystem seam."}},
		Tools:    []catalog.Tool{{Name: "echo", Input: in, Output: str, Doc: "Echo repeats."}},
		Types: []catalog.Type{
			{Name: "In", Go: catalog.Ref{Pkg: "p", Name: "In"}, Kind: catalog.TypeStruct, Fields: []catalog.Field{
				{Name: "Style", JSName: "style", JSONName: "style", Go: style, JS: "Style", Doc: "Style of the output."},
				{Name: "Pointer", JSName: "pointer", JSONName: "pointer", Go: &catalog.GoType{Kind: catalog.KindPointer, Elem: style}, JS: "Style", Optional: true},
			}},
			{Name: "Style", Go: catalog.Ref{Pkg: "p", Name: "Style"}, Kind: catalog.TypeEnum, Underlying: str, JS: "string", Enum: []catalog.EnumValue{
				{Name: "StylePlain", Value: "plain"},
				{Name: "StyleLoud", Value: "loud", Doc: "upper case,\nwith a \"bang\""},
			}},
		},
	}
}

// TestEnumDocsInSchema checks that the constants' docs reach the JSON Schema, next to
// the enum a client validates with.
func TestEnumDocsInSchema(t *testing.T) {
	c := enumCatalog()
	if err := Schemas(c); err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			Enum        []string `json:"enum"`
			Description string   `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(c.Tools[0].InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	values := `One of: "plain"; "loud": upper case, with a "bang".`
	for field, want := range map[string]string{
		"style":   "Style of the output. (" + values + ")",
		"pointer": values,
	} {
		p := s.Properties[field]
		if strings.Join(p.Enum, ",") != "plain,loud" || p.Description != want {
			t.Errorf("%s: enum %q, description %q; want plain,loud and %q", field, p.Enum, p.Description, want)
		}
	}
}

// TestEnumDocsInToolCatalog checks that the tool catalog's parameter table says what
// each enum value means.
func TestEnumDocsInToolCatalog(t *testing.T) {
	c := enumCatalog()
	if err := Schemas(c); err != nil {
		t.Fatal(err)
	}
	md := string(ToolCatalog(c, "header"))
	if want := "| `style` | `Style` | yes | Style of the output. One of: \"plain\"; \"loud\": upper case, with a \"bang\". |"; !strings.Contains(md, want) {
		t.Errorf("tool catalog lacks\n%s\nin:\n%s", want, md)
	}
}

// TestAbstractSeamInMarkdown checks that the events and services catalog says how an
// abstract seam is used and implemented, not only that it is one.
func TestAbstractSeamInMarkdown(t *testing.T) {
	md := string(EventsAndServices(enumCatalog(), nil, "header"))
	want := "### ctx.fs — FileSystem (abstract seam)\n\nAn interface that a plugin implements: inject `fs` to call whichever plugin provides it, " +
		"or provide it yourself — from Go with `p.FS.Provide(c, impl)`, from a mounted plugin with `ctx.provide('fs', { … })` — implementing the methods below.\n\nFS is the filesystem seam."
	if !strings.Contains(md, want) {
		t.Errorf("events and services lacks\n%s\nin:\n%s", want, md)
	}
}

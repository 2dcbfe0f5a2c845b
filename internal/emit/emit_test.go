package emit

import (
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
)

func TestSchemas(t *testing.T) {
	str := &catalog.GoType{Kind: catalog.KindBasic, Name: "string"}
	mode := &catalog.GoType{Kind: catalog.KindNamed, Pkg: "p", Name: "Mode"}
	in := &catalog.GoType{Kind: catalog.KindNamed, Pkg: "p", Name: "In"}
	c := &catalog.Catalog{
		Tools: []catalog.Tool{{Name: "t", Input: in, Output: &catalog.GoType{Kind: catalog.KindSlice, Elem: str}}},
		Types: []catalog.Type{
			{Name: "In", Go: catalog.Ref{Pkg: "p", Name: "In"}, Kind: catalog.TypeStruct, Fields: []catalog.Field{
				{Name: "Q", JSONName: "q", Go: str, Doc: "The query,\nwrapped."},
				{Name: "M", JSONName: "mode", Go: mode, Optional: true},
				{Name: "N", JSONName: "N", Go: &catalog.GoType{Kind: catalog.KindPointer, Elem: &catalog.GoType{Kind: catalog.KindBasic, Name: "uint8"}}, Optional: true},
			}},
			{Name: "Mode", Go: catalog.Ref{Pkg: "p", Name: "Mode"}, Kind: catalog.TypeEnum, Underlying: str, Enum: []catalog.EnumValue{{Value: "a"}, {Value: "b"}}},
		},
	}
	if err := Schemas(c); err != nil {
		t.Fatal(err)
	}
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"properties":{"q":{"type":"string","description":"The query, wrapped."},"mode":{"type":"string","enum":["a","b"]},` +
		`"N":{"type":"integer","minimum":0}},"required":["q"]}`
	if got := string(c.Tools[0].InputSchema); got != want {
		t.Errorf("input schema\n got %s\nwant %s", got, want)
	}
	if got := string(c.Tools[0].OutputSchema); got != `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":["null","array"],"items":{"type":"string"}}` {
		t.Errorf("output schema %s", got)
	}

	// A recursive type cannot be inlined.
	c.Types[0].Fields = append(c.Types[0].Fields, catalog.Field{Name: "Self", JSONName: "self", Go: &catalog.GoType{Kind: catalog.KindPointer, Elem: in}, Optional: true})
	if err := Schemas(c); err == nil || !strings.Contains(err.Error(), "recursive") {
		t.Errorf("recursive type: %v", err)
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"agent/pre-step": "AgentPreStep", "fs": "Fs", "cordis_inspect": "CordisInspect", "a.b/c-d": "ABCD"} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
	named := &catalog.GoType{Kind: catalog.KindNamed, Pkg: "p", Name: "item"}
	for _, tc := range []struct {
		t    *catalog.GoType
		want string
	}{
		{&catalog.GoType{Kind: catalog.KindSlice, Elem: &catalog.GoType{Kind: catalog.KindPointer, Elem: named}}, "cordisSliceOfPtrItem"},
		{&catalog.GoType{Kind: catalog.KindMap, Key: &catalog.GoType{Kind: catalog.KindBasic, Name: "string"}, Elem: &catalog.GoType{Kind: catalog.KindAny}}, "cordisMapOfStringToAny"},
		{&catalog.GoType{Kind: catalog.KindFunc, Params: []*catalog.GoType{named}}, "cordisFuncItem"},
		{&catalog.GoType{Kind: catalog.KindArray, Len: 2, Elem: &catalog.GoType{Kind: catalog.KindStruct}}, "cordisArray2OfEmptyStruct"},
	} {
		if got := goTypeVarName(tc.t); got != tc.want {
			t.Errorf("goTypeVarName(%s) = %s, want %s", tc.t, got, tc.want)
		}
	}
}

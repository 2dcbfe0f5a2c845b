package toolset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/toolset"
	"github.com/cordiskit/cordiskit/toolset/decl"
)

// WordsIn and WordsOut are the types of a tool declared here, as a runtime declares one.
type WordsIn struct {
	Text string `json:"text"`
}

type WordsOut struct {
	Count int `json:"count"`
}

var words = kit.NewTool[WordsIn, WordsOut]("words")

const pkgPath = "github.com/cordiskit/cordiskit/toolset_test"

// wordsCatalog is what gen-cordis-api would write for words, with in and out as its
// recorded input and output types.
func wordsCatalog(in, out string) *catalog.Catalog {
	named := func(name string) *catalog.GoType {
		return &catalog.GoType{Kind: catalog.KindNamed, Pkg: pkgPath, Name: name}
	}
	return &catalog.Catalog{Tools: []catalog.Tool{{
		Name: "words", Input: named(in), Output: &catalog.GoType{Kind: catalog.KindPointer, Elem: named(out)},
		Doc:          "Words counts the words of a text.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer"}}}`),
		Source:       "toolset/bind_test.go",
	}}}
}

func TestToolSchema(t *testing.T) {
	cat := wordsCatalog("WordsIn", "WordsOut")
	schema, err := toolset.ToolSchema(cat, words)
	if err != nil {
		t.Fatal(err)
	}
	ct, _ := cat.Tool("words")
	want := kit.ToolSchema{Name: "words", Description: ct.Doc, InputSchema: ct.InputSchema, OutputSchema: ct.OutputSchema}
	if !reflect.DeepEqual(schema, want) {
		t.Fatalf("ToolSchema = %+v\nwant %+v", schema, want)
	}

	// What ToolSchema returns is what Bind and Register take: the tool runs with it.
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())
	tools, _ := kit.ToolsService.Get(root)
	if _, err := tools.Register(root, words.Bind(schema, func(_ context.Context, in WordsIn) (WordsOut, error) {
		return WordsOut{Count: len(strings.Fields(in.Text))}, nil
	})); err != nil {
		t.Fatal(err)
	}
	got, ok := tools.Get("words")
	if !ok || got.Description != ct.Doc || string(got.InputSchema) != string(ct.InputSchema) {
		t.Errorf("registered schema = %+v", got)
	}
	out, err := tools.Call(context.Background(), "words", json.RawMessage(`{"text":"one two three"}`))
	if err != nil || string(out) != `{"count":3}` {
		t.Errorf("words = %s, %v", out, err)
	}
}

func TestToolSchemaErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cat  *catalog.Catalog
		want string
	}{
		{"nil catalog", nil, "needs the generated catalog"},
		{"not catalogued", &catalog.Catalog{}, `tool "words" is not in the catalog: declare it as a package-level variable (var X = kit.NewTool[In, Out]("words"))`},
		{"stale input", wordsCatalog("OldIn", "WordsOut"), `tool "words" is declared with input type ` + pkgPath + `.WordsIn, but the catalog describes ` + pkgPath + `.OldIn (declared at toolset/bind_test.go): the catalog is stale — run go generate`},
		{"stale output", wordsCatalog("WordsIn", "WordsIn"), `output type ` + pkgPath + `.WordsOut, but the catalog describes *` + pkgPath + `.WordsIn`},
	} {
		_, err := toolset.ToolSchema(tc.cat, words)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

// TestToolsetToolsUseToolSchema checks that the toolset registers its own tools with the
// schemas of the core tier, through the same helper.
func TestToolsetToolsUseToolSchema(t *testing.T) {
	h := newHarness(t)
	for _, name := range []string{decl.Inspect.Name(), decl.Mount.Name(), decl.Unmount.Name()} {
		got, ok := h.tools.Get(name)
		ct, _ := generated.Catalog.Tool(name)
		if !ok || ct == nil || got.Description != ct.Doc || string(got.InputSchema) != string(ct.InputSchema) || string(got.OutputSchema) != string(ct.OutputSchema) {
			t.Errorf("%s registered as %+v, want the core tier's schema", name, got)
		}
	}
}

// A runtime binds the tools it declares in Go with the schemas gen-cordis-api derived.
func ExampleToolSchema() {
	schema, err := toolset.ToolSchema(generated.Catalog, decl.Unmount)
	if err != nil {
		fmt.Println(err)
		return
	}
	tool := decl.Unmount.Bind(schema, func(ctx context.Context, in decl.UnmountInput) (decl.UnmountOutput, error) {
		return decl.UnmountOutput{ID: in.ID}, nil
	})
	fmt.Println(tool.Name, strings.HasPrefix(tool.Description, "Unmount removes"))
	// Output: cordis_unmount true
}

package tooldecl_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl"
	"github.com/cordiskit/cordiskit/tooldecl/cordis"
	"github.com/google/go-cmp/cmp"
)

// WordsIn and WordsOut are the types of a tool declared here, as a runtime declares one.
type WordsIn struct {
	Text string `json:"text"`
}

type WordsOut struct {
	Count int `json:"count"`
}

var words = kit.NewTool[WordsIn, WordsOut]("words")

const pkgPath = "github.com/cordiskit/cordiskit/tooldecl_test"

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
		Source:       "tooldecl/bind_test.go",
	}}}
}

func countWords(_ context.Context, in WordsIn) (WordsOut, error) {
	return WordsOut{Count: len(strings.Fields(in.Text))}, nil
}

func TestSchema(t *testing.T) {
	cat := wordsCatalog("WordsIn", "WordsOut")
	schema, err := tooldecl.Schema(cat, words)
	if err != nil {
		t.Fatal(err)
	}
	ct, _ := cat.Tool("words")
	want := kit.ToolSchema{Name: "words", Description: ct.Doc, InputSchema: ct.InputSchema, OutputSchema: ct.OutputSchema}
	if diff := cmp.Diff(want, schema); diff != "" {
		t.Fatalf("Schema (-want +got):\n%s", diff)
	}
}

// What Bind returns registers and runs with the catalog's schema, and decodes strictly.
func TestBind(t *testing.T) {
	cat := wordsCatalog("WordsIn", "WordsOut")
	tool, err := tooldecl.Bind(cat, words, countWords)
	if err != nil {
		t.Fatal(err)
	}
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())
	tools, _ := kit.ToolsService.Get(root)
	if _, err := tools.Register(root, tool); err != nil {
		t.Fatal(err)
	}
	got, _ := tools.Get("words")
	want, _ := tooldecl.Schema(cat, words)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registered schema (-want +got):\n%s", diff)
	}
	out, err := tools.Call(context.Background(), "words", json.RawMessage(`{"text":"one two three"}`))
	if err != nil || string(out) != `{"count":3}` {
		t.Errorf("words = %s, %v", out, err)
	}
	_, err = tools.Call(context.Background(), "words", json.RawMessage(`{"text":"one","txet":"two"}`))
	if want := `words: the arguments do not fit its input schema (json: unknown field "txet"); call it again with only the fields the schema lists, each of the type it says`; err == nil || err.Error() != want {
		t.Errorf("unknown field: err = %v, want %q", err, want)
	}
}

func TestSchemaAndBindErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cat  *catalog.Catalog
		fn   func(context.Context, WordsIn) (WordsOut, error)
		want string
	}{
		{"nil catalog", nil, countWords, "tooldecl: a declared tool's schema needs the generated catalog (cordisapi.Catalog) and the tool's declaration (var X = kit.NewTool[In, Out](name))"},
		{"not catalogued", &catalog.Catalog{}, countWords, `tooldecl: tool "words" is not in the catalog: declare it as a package-level variable (var X = kit.NewTool[In, Out]("words")) in a package gen-cordis-api scans, run go generate, and pass the catalog it writes`},
		{"stale input", wordsCatalog("OldIn", "WordsOut"), countWords, `tooldecl: tool "words" is declared with input type ` + pkgPath + `.WordsIn, but the catalog describes ` + pkgPath + `.OldIn (declared at tooldecl/bind_test.go): the catalog is stale — run go generate`},
		{"stale output", wordsCatalog("WordsIn", "WordsIn"), countWords, `tooldecl: tool "words" is declared with output type ` + pkgPath + `.WordsOut, but the catalog describes *` + pkgPath + `.WordsIn (declared at tooldecl/bind_test.go): the catalog is stale — run go generate`},
		{"no function", wordsCatalog("WordsIn", "WordsOut"), nil, "tooldecl: Bind needs the function that runs the tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fn != nil {
				if _, err := tooldecl.Schema(tc.cat, words); err == nil || err.Error() != tc.want {
					t.Errorf("Schema: err = %v\nwant %s", err, tc.want)
				}
			}
			tool, err := tooldecl.Bind(tc.cat, words, tc.fn)
			if err == nil || err.Error() != tc.want || tool.Execute != nil {
				t.Errorf("Bind: tool %q, err = %v\nwant %s", tool.Name, err, tc.want)
			}
		})
	}
}

// A runtime binds the tools it declares in Go with the schemas gen-cordis-api derived.
func ExampleBind() {
	tool, err := tooldecl.Bind(generated.Catalog, cordis.Unmount, func(ctx context.Context, in cordis.UnmountInput) (cordis.UnmountOutput, error) {
		return cordis.UnmountOutput{ID: in.ID}, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tool.Name, strings.HasPrefix(tool.Description, "Unmount removes"))
	out, err := tool.Execute(context.Background(), json.RawMessage(`{"id":"dyn-1","force":true}`))
	fmt.Println(string(out), err)
	// Output:
	// cordis_unmount true
	//  cordis_unmount: the arguments do not fit its input schema (json: unknown field "force"); call it again with only the fields the schema lists, each of the type it says
}

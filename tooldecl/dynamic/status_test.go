package dynamic_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/google/go-cmp/cmp"
)

// statusTypes are the four status types and the Go type of each, for the round trip.
var statusTypes = map[string]reflect.Type{
	"PluginState": reflect.TypeFor[dynamic.PluginState](),
	"RunStatus":   reflect.TypeFor[dynamic.RunStatus](),
	"HalfStatus":  reflect.TypeFor[dynamic.HalfStatus](),
	"StartStatus": reflect.TypeFor[dynamic.StartStatus](),
}

// A status constant as decl.go declares it.
type statusConst struct {
	name, value string
	doc         bool
}

// declaredStatuses reads decl.go: each status type's doc comment and its constants.
func declaredStatuses(t *testing.T) (docs map[string]string, consts map[string][]statusConst) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "decl.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	docs, consts = map[string]string{}, map[string][]statusConst{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if _, ok := statusTypes[s.Name.Name]; ok {
					docs[s.Name.Name] = g.Doc.Text()
				}
			case *ast.ValueSpec:
				id, ok := s.Type.(*ast.Ident)
				if !ok || statusTypes[id.Name] == nil || g.Tok != token.CONST {
					continue
				}
				v, err := strconv.Unquote(s.Values[0].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				consts[id.Name] = append(consts[id.Name], statusConst{s.Names[0].Name, v, s.Doc.Text() != ""})
			}
		}
	}
	return docs, consts
}

// Every value of the four status types is documented twice — in its own comment and in
// its type's, which says what moves a status to it — carries its type's name as its
// prefix, survives a JSON round trip as its own type, and is exactly what the tools'
// output schemas offer the model for that type (no value missing, none extra).
func TestStatusesDocumentedAndRoundTrip(t *testing.T) {
	docs, consts := declaredStatuses(t)
	prefixes := map[string]string{"PluginState": "Plugin", "RunStatus": "Run", "HalfStatus": "Half", "StartStatus": "Start"}
	enums := outputEnums(t)
	for typ, rt := range statusTypes {
		cs := consts[typ]
		if len(cs) == 0 || docs[typ] == "" {
			t.Errorf("%s: no constants or no doc comment found in decl.go", typ)
			continue
		}
		var values []string
		for _, c := range cs {
			values = append(values, c.value)
			if !c.doc {
				t.Errorf("%s (%s) has no doc comment", c.name, typ)
			}
			if !strings.HasPrefix(c.name, prefixes[typ]) {
				t.Errorf("%s (%s) does not start with %q: its name must say which status it is", c.name, typ, prefixes[typ])
			}
			if !strings.Contains(docs[typ], c.value) {
				t.Errorf("%s's doc comment never names %q: say what moves a %s there", typ, c.value, typ)
			}
			v := reflect.New(rt).Elem()
			v.SetString(c.value)
			b, err := json.Marshal(v.Interface())
			if err != nil {
				t.Fatal(err)
			}
			back := reflect.New(rt)
			if err := json.Unmarshal(b, back.Interface()); err != nil || back.Elem().String() != c.value {
				t.Errorf("%s %q round-trips as %s to %q (%v)", typ, c.value, b, back.Elem().String(), err)
			}
		}
		slices.Sort(values)
		if !slices.ContainsFunc(enums, func(e []string) bool { return slices.Equal(e, values) }) {
			t.Errorf("no output schema of the seven tools offers exactly %s's values %q; enums found:\n%s", typ, values, cmp.Diff(nil, enums))
		}
	}
}

// outputEnums collects every string enum of the seven tools' output schemas, sorted.
func outputEnums(t *testing.T) [][]string {
	t.Helper()
	var schemas []json.RawMessage
	for _, name := range []string{dynamic.InspectSelf.Name(), dynamic.Run.Name()} {
		ct, ok := generated.Catalog.Tool(name)
		if !ok {
			t.Fatalf("%s is not in the core tier's catalog", name)
		}
		schemas = append(schemas, ct.OutputSchema)
	}
	var out [][]string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if e, ok := v["enum"].([]any); ok {
				var vs []string
				for _, x := range e {
					if s, ok := x.(string); ok {
						vs = append(vs, s)
					}
				}
				slices.Sort(vs)
				out = append(out, vs)
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, s := range schemas {
		var v any
		if err := json.Unmarshal(s, &v); err != nil {
			t.Fatal(err)
		}
		walk(v)
	}
	return out
}

package catalog

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func testCatalog() *Catalog {
	return &Catalog{
		Events: []Event{{Name: "tools/change", Mode: ModeEmit, Var: Ref{"k", "ToolsChange"}}},
		Services: []Service{{Key: "fs", Var: Ref{"k", "FS"}, Methods: []Method{
			{Name: "Stat", JSName: "stat", Signature: "stat(path: string): Info | undefined"},
			{Name: "Read", JSName: "read", Signature: "async read(f: FileRef): Promise<string>"},
		}}},
		Tools: []Tool{{Name: "echo", Var: Ref{"k", "Echo"}}},
		Types: []Type{
			{Name: "Info", Go: Ref{"k", "Info"}, Refs: []string{"Mode"}},
			{Name: "Mode", Go: Ref{"k", "Mode"}},
			{Name: "FileRef", Go: Ref{"k", "FileRef"}, Refs: []string{"Info"}},
			{Name: "In", Go: Ref{"k", "In"}},
			{Name: "Unused", Go: Ref{"k", "Unused"}},
		},
	}
}

func TestLookups(t *testing.T) {
	c := testCatalog()
	if e, ok := c.Event("tools/change"); !ok {
		t.Error("Event(tools/change) not found")
	} else if diff := cmp.Diff(&Event{Name: "tools/change", Mode: ModeEmit, Var: Ref{"k", "ToolsChange"}}, e); diff != "" {
		t.Errorf("Event(tools/change) (-want +got):\n%s", diff)
	}
	if _, ok := c.Event("nope"); ok {
		t.Error("Event(nope) found something")
	}
	s, ok := c.Service("fs")
	if !ok {
		t.Fatal("Service(fs) not found")
	}
	if m, ok := s.Method("read"); !ok {
		t.Error("Method(read) not found")
	} else if diff := cmp.Diff(&Method{Name: "Read", JSName: "read", Signature: "async read(f: FileRef): Promise<string>"}, m); diff != "" {
		t.Errorf("Method(read) (-want +got):\n%s", diff)
	}
	if tool, ok := c.Tool("echo"); !ok {
		t.Error("Tool(echo) not found")
	} else if diff := cmp.Diff(&Tool{Name: "echo", Var: Ref{"k", "Echo"}}, tool); diff != "" {
		t.Errorf("Tool(echo) (-want +got):\n%s", diff)
	}
	if typ, ok := c.Type("Mode"); !ok {
		t.Error("Type(Mode) not found")
	} else if diff := cmp.Diff(&Type{Name: "Mode", Go: Ref{"k", "Mode"}}, typ); diff != "" {
		t.Errorf("Type(Mode) (-want +got):\n%s", diff)
	}
}

func names(ts []*Type) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestTypeClosure(t *testing.T) {
	c := testCatalog()
	s, _ := c.Service("fs")
	for _, tc := range []struct {
		sigs []string
		want []string
	}{
		{s.Signatures(), []string{"FileRef", "Info", "Mode"}},
		{[]string{"stat(path: string): Info"}, []string{"Info", "Mode"}},
		{[]string{"x(info: Infos, Index: In2)"}, nil},                   // whole words only
		{[]string{"x(a: In[], b: Record<string, In>)"}, []string{"In"}}, // delimited by punctuation
		{nil, nil},
	} {
		if diff := cmp.Diff(tc.want, names(c.TypeClosure(tc.sigs...)), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("TypeClosure(%q) (-want +got):\n%s", tc.sigs, diff)
		}
	}
	if diff := cmp.Diff([]string{"FileRef", "Info", "Mode"}, names(c.Closure("FileRef", "nope"))); diff != "" {
		t.Errorf("Closure(FileRef, nope) (-want +got):\n%s", diff)
	}
}

func TestMerge(t *testing.T) {
	core := testCatalog()
	own := &Catalog{
		Events: []Event{{Name: "agent/error", Var: Ref{"rt", "AgentError"}}},
		Types:  []Type{{Name: "Info", Go: Ref{"k", "Info"}}}, // the same Go type: kept once
	}
	m, err := Merge(own, core)
	if err != nil {
		t.Fatal(err)
	}
	want := &Catalog{
		Events:   []Event{own.Events[0], core.Events[0]},
		Services: core.Services,
		Tools:    core.Tools,
		Types: []Type{
			{Name: "FileRef", Go: Ref{"k", "FileRef"}, Refs: []string{"Info"}},
			{Name: "In", Go: Ref{"k", "In"}},
			own.Types[0], // the first catalog's declaration of the shared type
			{Name: "Mode", Go: Ref{"k", "Mode"}},
			{Name: "Unused", Go: Ref{"k", "Unused"}},
		},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}

	clash := &Catalog{
		Services: []Service{{Key: "fs", Var: Ref{"rt", "MyFS"}}},
		Types:    []Type{{Name: "Info", Go: Ref{"rt", "Info"}}},
	}
	_, err = Merge(core, clash)
	if err == nil {
		t.Fatal("Merge of clashing catalogs succeeded")
	}
	for _, want := range []string{`service "fs" is declared by both k.FS and rt.MyFS`, `type "Info"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestGoTypeString(t *testing.T) {
	named := &GoType{Kind: KindNamed, Pkg: "example.com/k", Name: "T"}
	for _, tc := range []struct {
		t    *GoType
		want string
	}{
		{&GoType{Kind: KindSlice, Elem: &GoType{Kind: KindPointer, Elem: named}}, "[]*example.com/k.T"},
		{&GoType{Kind: KindMap, Key: &GoType{Kind: KindBasic, Name: "string"}, Elem: &GoType{Kind: KindAny}}, "map[string]any"},
		{&GoType{Kind: KindArray, Len: 3, Elem: &GoType{Kind: KindStruct}}, "[3]struct{}"},
		{&GoType{Kind: KindFunc, Params: []*GoType{named, {Kind: KindSlice, Elem: named}}, Variadic: true,
			Results: []*GoType{named, {Kind: KindBasic, Name: "error"}}}, "func(example.com/k.T, ...example.com/k.T) (example.com/k.T, error)"},
		{&GoType{Kind: KindFunc}, "func()"},
	} {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	if !named.Is("example.com/k", "T") || (&GoType{Kind: KindPointer, Elem: named}).Named() != named {
		t.Error("Is/Named do not see the named type")
	}
}

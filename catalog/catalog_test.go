package catalog

import (
	"strings"
	"testing"
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
	if e, ok := c.Event("tools/change"); !ok || e.Var.Name != "ToolsChange" {
		t.Errorf("Event = %v, %v", e, ok)
	}
	if _, ok := c.Event("nope"); ok {
		t.Error("Event(nope) found something")
	}
	s, ok := c.Service("fs")
	if !ok {
		t.Fatal("Service(fs) not found")
	}
	if m, ok := s.Method("read"); !ok || m.Name != "Read" {
		t.Errorf("Method(read) = %v, %v", m, ok)
	}
	if _, ok := c.Tool("echo"); !ok {
		t.Error("Tool(echo) not found")
	}
	if typ, ok := c.Type("Mode"); !ok || typ.Go.Name != "Mode" {
		t.Errorf("Type(Mode) = %v, %v", typ, ok)
	}
}

func names(ts []*Type) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
}

func TestTypeClosure(t *testing.T) {
	c := testCatalog()
	s, _ := c.Service("fs")
	for _, tc := range []struct {
		sigs []string
		want string
	}{
		{s.Signatures(), "FileRef,Info,Mode"},
		{[]string{"stat(path: string): Info"}, "Info,Mode"},
		{[]string{"x(info: Infos, Index: In2)"}, ""},          // whole words only
		{[]string{"x(a: In[], b: Record<string, In>)"}, "In"}, // delimited by punctuation
		{nil, ""},
	} {
		if got := names(c.TypeClosure(tc.sigs...)); got != tc.want {
			t.Errorf("TypeClosure(%q) = %q, want %q", tc.sigs, got, tc.want)
		}
	}
	if got := names(c.Closure("FileRef", "nope")); got != "FileRef,Info,Mode" {
		t.Errorf("Closure = %q", got)
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
	if len(m.Events) != 2 || m.Events[0].Name != "agent/error" || len(m.Types) != 5 {
		t.Errorf("Merge = %d events (first %q), %d types", len(m.Events), m.Events[0].Name, len(m.Types))
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

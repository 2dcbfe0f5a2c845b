// The tables of dynamic-plugins.md are generated from the Go types, and the document is
// checked against the code: every verb the panel answers and every cordis/ event the
// runner and the panel name has its section, every JSON shape a table, a verb or the
// wire refers to has a table of its own, and every Go name it mentions (`runner.New`,
// `Runner.Connect`, `panel.Options.MaxReplay`) exists. Run
//
//	go test ./docs -run TestContract -update
//
// to rewrite the tables after a Go type changed; a verb, an event or a type the document
// misses needs a human to place it, and the failure lists each.
package docs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/panel"
	"github.com/cordiskit/cordiskit/runner"
)

var update = flag.Bool("update", false, "rewrite the generated tables of dynamic-plugins.md")

const (
	contractDoc = "dynamic-plugins.md"
	module      = "github.com/cordiskit/cordiskit"
)

// wirePackages hold the types the page protocol and the tools put on the wire: every
// exported JSON-tagged struct type declared in one of them needs a table, or a
// gen:skip marker that says why it is not on the wire.
var wirePackages = []string{"runner", "runner/page", "runner/inspect", "tooldecl/dynamic", "panel"}

// The doc's Go references (`runner.New`, `Runner.Connect`, `panel.Options.MaxReplay`, …)
// are checked against these packages and, unqualified, these types.
var (
	refPackages = []string{"runner", "runner/page", "runner/inspect", "tooldecl/dynamic", "panel", "kit"}
	refTypes    = map[string][]string{"Runner": {"runner.Runner"}, "Handler": {"panel.Handler"}, "Store": {"runner.Store"},
		"Options": {"runner.Options", "panel.Options"}}
)

// A marker is one generated block: <!-- gen:KIND NAME --> … <!-- end -->.
var markerRE = regexp.MustCompile(`(?s)<!-- gen:(fields|values) (\S+) -->\n.*?<!-- end -->`)

// skipRE marks a type of a wire package that is not on the wire: <!-- gen:skip NAME: why -->.
var skipRE = regexp.MustCompile(`<!-- gen:skip (\S+?): [^>]+ -->`)

func TestContract(t *testing.T) {
	src, err := os.ReadFile(contractDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	w := loadWorld(t)

	doc, problems := w.eventMarkers(doc)
	got, more := w.render(doc)
	problems = append(problems, more...)
	if *update {
		if got != doc {
			if err := os.WriteFile(contractDoc, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	} else if d := cmp.Diff(string(src), got); d != "" {
		t.Errorf("the generated tables of %s differ from the Go types; run go test ./docs -run TestContract -update (-doc +types):\n%s", contractDoc, d)
	}
	problems = append(problems, w.uncovered(got)...)
	problems = append(problems, checkEvents(w, got)...)
	verbs, more := checkVerbs(t, got)
	problems = append(problems, more...)
	problems = append(problems, w.verbShapes(got, verbs)...)
	problems = append(problems, w.references(got)...)
	for _, p := range problems {
		t.Error(p)
	}
}

// A world is the loaded packages of the module the document describes.
type world struct {
	pkgs map[string]*packages.Package // by import path
	docs map[token.Pos]string         // the doc comment of a field or constant, by its name's position
}

func loadWorld(t *testing.T) *world {
	t.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo, Dir: ".."}
	var patterns []string
	for _, p := range refPackages {
		patterns = append(patterns, "./"+p)
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{pkgs: map[string]*packages.Package{}, docs: map[token.Pos]string{}}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("loading %s: %v", p.PkgPath, e)
		}
		w.pkgs[p.PkgPath] = p
		for _, f := range p.Syntax {
			w.collectDocs(f)
		}
	}
	return w
}

// collectDocs records the comments of struct fields and constants: the doc comment, else
// the line comment.
func (w *world) collectDocs(f *ast.File) {
	text := func(doc, line *ast.CommentGroup) string {
		if doc != nil {
			return doc.Text()
		}
		return line.Text()
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			for _, id := range n.Names {
				w.docs[id.Pos()] = text(n.Doc, n.Comment)
			}
			if len(n.Names) == 0 { // embedded
				w.docs[n.Type.Pos()] = text(n.Doc, n.Comment)
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				w.docs[id.Pos()] = text(n.Doc, n.Comment)
			}
		}
		return true
	})
}

// lookup finds "tooldecl/dynamic.Attempt" (a path in the module and a name), aliases resolved.
func (w *world) lookup(name string) (*types.Named, error) {
	i := strings.LastIndex(name, ".")
	if i < 0 {
		return nil, fmt.Errorf("%q is not PATH.Name", name)
	}
	p := w.pkgs[module+"/"+name[:i]]
	if p == nil {
		return nil, fmt.Errorf("%s: package %s is not loaded; add it to wirePackages in contract_test.go", name, name[:i])
	}
	obj, ok := p.Types.Scope().Lookup(name[i+1:]).(*types.TypeName)
	if !ok {
		return nil, fmt.Errorf("the doc names %s, which is not a type of %s (renamed or moved?); name the type that carries it now", name, name[:i])
	}
	n, ok := types.Unalias(obj.Type()).(*types.Named)
	if !ok {
		return nil, fmt.Errorf("%s is not a named type", name)
	}
	return n, nil
}

// short is how the document names a type: its path in the module and its name.
func short(n *types.Named) string {
	return strings.TrimPrefix(strings.TrimPrefix(n.Obj().Pkg().Path(), module), "/") + "." + n.Obj().Name()
}

// label heads a table: the Go type a program uses, or, for a wire shape the Go API does
// not export, no name.
func label(n *types.Named) string {
	if !n.Obj().Exported() {
		return "Fields:"
	}
	return "`" + short(n) + "`:"
}

// render rewrites every generated block of doc from the types. A type whose table came
// earlier (an alias of it, or the same type named twice) gets a line that points there.
func (w *world) render(doc string) (string, []string) {
	var problems []string
	seen := map[string]string{} // by short name: the packages' views of one type are distinct objects
	out := markerRE.ReplaceAllStringFunc(doc, func(block string) string {
		m := markerRE.FindStringSubmatch(block)
		kind, name := m[1], m[2]
		head := "<!-- gen:" + kind + " " + name + " -->\n"
		n, err := w.lookup(name)
		if err != nil {
			problems = append(problems, err.Error())
			return block
		}
		var body string
		switch {
		case seen[short(n)] != "":
			body = fmt.Sprintf("`%s`: the fields of `%s`, above.\n", name, seen[short(n)])
		case kind == "fields":
			body, err = w.fields(name, n)
		default:
			body, err = w.values(name, n)
		}
		if err != nil {
			problems = append(problems, err.Error())
			return block
		}
		if seen[short(n)] == "" {
			seen[short(n)] = name
		}
		return head + body + "<!-- end -->"
	})
	return out, problems
}

// A field is one JSON member of a struct, embedded structs flattened as encoding/json does.
type field struct {
	name, typ, doc string
	optional       bool
}

func (w *world) jsonFields(s *types.Struct) []field {
	var out []field
	for i := range s.NumFields() {
		v := s.Field(i)
		tag := reflect.StructTag(s.Tag(i)).Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if !v.Exported() || name == "-" {
			continue
		}
		if v.Embedded() && name == "" {
			if es, ok := types.Unalias(deref(v.Type())).Underlying().(*types.Struct); ok {
				out = append(out, w.jsonFields(es)...)
				continue
			}
		}
		if name == "" {
			name = v.Name()
		}
		_, ptr := types.Unalias(v.Type()).(*types.Pointer)
		out = append(out, field{name: name, typ: w.jsonType(v.Type()), doc: oneLine(w.docs[v.Pos()]),
			optional: ptr || strings.Contains(","+opts+",", ",omitempty,")})
	}
	return out
}

func deref(t types.Type) types.Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

func (w *world) fields(name string, n *types.Named) (string, error) {
	s, ok := n.Underlying().(*types.Struct)
	if !ok {
		return "", fmt.Errorf("gen:fields %s: not a struct type; use gen:values for a type of constants", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n| field | type | |\n|---|---|---|\n", label(n))
	for _, f := range w.jsonFields(s) {
		typ := f.typ
		if f.optional {
			typ += ", optional"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.name, typ, cell(f.doc))
	}
	return b.String(), nil
}

// values lists the constants of n in source order with their comments.
func (w *world) values(name string, n *types.Named) (string, error) {
	consts := w.constants(n)
	if len(consts) == 0 {
		return "", fmt.Errorf("gen:values %s: the type has no constants", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n| value | meaning |\n|---|---|\n", label(n))
	for _, c := range consts {
		fmt.Fprintf(&b, "| `%s` | %s |\n", constant.StringVal(c.Val()), cell(oneLine(w.docs[c.Pos()])))
	}
	return b.String(), nil
}

// constants returns the string constants of type n declared in its package, in source order.
func (w *world) constants(n *types.Named) []*types.Const {
	p := w.pkgs[n.Obj().Pkg().Path()]
	if p == nil {
		return nil
	}
	var out []*types.Const
	sc := p.Types.Scope()
	for _, id := range sc.Names() {
		if c, ok := sc.Lookup(id).(*types.Const); ok && c.Exported() && types.Identical(c.Type(), n) && c.Val().Kind() == constant.String {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *types.Const) int {
		pa, pb := p.Fset.Position(a.Pos()), p.Fset.Position(b.Pos())
		return cmpPos(pa, pb)
	})
	return out
}

// cmpPos orders positions by file name, then offset: source order, files as go lists them.
func cmpPos(a, b token.Position) int {
	if c := strings.Compare(a.Filename, b.Filename); c != 0 {
		return c
	}
	return a.Offset - b.Offset
}

// jsonType says what a Go type is in JSON: the values of a type of string constants
// (four at most; else its name), the name of an object's type.
func (w *world) jsonType(t types.Type) string {
	t = types.Unalias(t)
	switch t := t.(type) {
	case *types.Pointer:
		return w.jsonType(t.Elem())
	case *types.Slice:
		if b, ok := t.Elem().(*types.Basic); ok && b.Kind() == types.Byte {
			return "base64 string"
		}
		return "array of " + w.jsonType(t.Elem())
	case *types.Map:
		return "object of " + w.jsonType(t.Elem())
	case *types.Interface:
		return "any JSON"
	case *types.Named:
		if t.Obj().Pkg() != nil && t.Obj().Pkg().Path() == "encoding/json" && t.Obj().Name() == "RawMessage" {
			return "any JSON"
		}
		if _, ok := t.Underlying().(*types.Struct); ok {
			return "`" + short(t) + "`"
		}
		if cs := w.constants(t); len(cs) > 0 && len(cs) <= 4 {
			var vs []string
			for _, c := range cs {
				vs = append(vs, "`"+strconv.Quote(constant.StringVal(c.Val()))+"`")
			}
			return strings.Join(vs, " or ")
		} else if len(cs) > 0 {
			return "string: `" + short(t) + "`"
		}
		return w.jsonType(t.Underlying())
	case *types.Basic:
		switch {
		case t.Info()&types.IsString != 0:
			return "string"
		case t.Info()&types.IsBoolean != 0:
			return "boolean"
		case t.Info()&types.IsNumeric != 0:
			return "number"
		}
	}
	return t.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// uncovered lists the JSON shapes the tables refer to without a table of their own, the
// wire types no table shows, and the values tables a referred type of constants lacks.
func (w *world) uncovered(doc string) []string {
	covered := map[string]bool{} // by short name, as render's seen
	var roots []*types.Named
	for _, m := range markerRE.FindAllStringSubmatch(doc, -1) {
		if n, err := w.lookup(m[2]); err == nil {
			covered[short(n)] = true
			roots = append(roots, n)
			for _, e := range embedded(n) {
				covered[short(e)] = true // its fields are in n's table
			}
		}
	}
	for _, m := range skipRE.FindAllStringSubmatch(doc, -1) {
		if n, err := w.lookup(m[1]); err == nil {
			covered[short(n)] = true
		}
	}
	var problems []string
	for _, n := range roots {
		s, ok := n.Underlying().(*types.Struct)
		if !ok {
			continue
		}
		for _, ref := range w.referred(s) {
			if !covered[short(ref)] {
				covered[short(ref)] = true // once
				problems = append(problems, fmt.Sprintf("%s has no table, and %s refers to it: add <!-- gen:fields %s --><!-- end --> where it belongs", short(ref), short(n), short(ref)))
			}
		}
	}
	for _, path := range wirePackages {
		p := w.pkgs[module+"/"+path]
		sc := p.Types.Scope()
		for _, id := range sc.Names() {
			tn, ok := sc.Lookup(id).(*types.TypeName)
			if !ok || !tn.Exported() || tn.IsAlias() {
				continue
			}
			n, ok := tn.Type().(*types.Named)
			if !ok || covered[short(n)] || !jsonTagged(n) {
				continue
			}
			problems = append(problems, fmt.Sprintf("%s is a JSON-tagged type of a wire package and the doc has no table of it: add <!-- gen:fields %s --><!-- end --> where it belongs, or <!-- gen:skip %s: why it is not on the wire -->", short(n), short(n), short(n)))
		}
	}
	slices.Sort(problems)
	return problems
}

// referred returns the named struct types of the module that s's JSON fields hold.
func (w *world) referred(s *types.Struct) []*types.Named {
	var out []*types.Named
	var walk func(t types.Type)
	walk = func(t types.Type) {
		switch t := types.Unalias(t).(type) {
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Map:
			walk(t.Elem())
		case *types.Named:
			if _, ok := t.Underlying().(*types.Struct); ok && strings.HasPrefix(t.Obj().Pkg().Path(), module) {
				out = append(out, t)
			}
		}
	}
	for i := range s.NumFields() {
		v := s.Field(i)
		if !v.Exported() || reflect.StructTag(s.Tag(i)).Get("json") == "-" {
			continue
		}
		if es, ok := types.Unalias(deref(v.Type())).Underlying().(*types.Struct); ok && v.Embedded() && reflect.StructTag(s.Tag(i)).Get("json") == "" {
			out = append(out, w.referred(es)...)
			continue
		}
		walk(v.Type())
	}
	return out
}

// embedded returns the struct types whose fields n's JSON holds as its own.
func embedded(n *types.Named) []*types.Named {
	s, ok := n.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	var out []*types.Named
	for i := range s.NumFields() {
		v := s.Field(i)
		if !v.Embedded() || reflect.StructTag(s.Tag(i)).Get("json") != "" {
			continue
		}
		if e, ok := types.Unalias(deref(v.Type())).(*types.Named); ok {
			out = append(out, e)
			out = append(out, embedded(e)...)
		}
	}
	return out
}

func jsonTagged(n *types.Named) bool {
	s, ok := n.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range s.NumFields() {
		if _, ok := reflect.StructTag(s.Tag(i)).Lookup("json"); ok {
			return true
		}
	}
	return false
}

var refRE = regexp.MustCompile("`((?:tooldecl/dynamic|runner/page|runner/inspect|runner|panel|kit|Runner|Handler|Store|Options)(?:\\.[A-Z][A-Za-z0-9]*)+)`")

// references lists the doc's Go references that name nothing: a renamed function, type,
// method or field.
func (w *world) references(doc string) []string {
	var problems []string
	seen := map[string]bool{}
	for _, m := range refRE.FindAllStringSubmatch(doc, -1) {
		ref := m[1]
		if seen[ref] {
			continue
		}
		seen[ref] = true
		parts := strings.Split(ref, ".")
		var scopes []types.Type // where parts[i] is looked up, for i ≥ 1
		var rest []string
		if typs, ok := refTypes[parts[0]]; ok {
			for _, t := range typs {
				if n, err := w.lookup(t); err == nil {
					scopes = append(scopes, n)
				}
			}
			rest = parts[1:]
		} else {
			p := w.pkgs[module+"/"+parts[0]]
			obj := p.Types.Scope().Lookup(parts[1])
			if obj == nil || !obj.Exported() {
				problems = append(problems, fmt.Sprintf("the doc refers to %s, which %s does not declare", ref, parts[0]))
				continue
			}
			scopes, rest = []types.Type{obj.Type()}, parts[2:]
		}
		if !resolves(scopes, rest) {
			problems = append(problems, fmt.Sprintf("the doc refers to %s, which names no field or method (renamed?)", ref))
		}
	}
	slices.Sort(problems)
	return problems
}

// resolves reports whether the selectors rest lead from one of scopes to fields or methods.
func resolves(scopes []types.Type, rest []string) bool {
	for _, t := range scopes {
		ok := true
		for _, sel := range rest {
			recv := types.Unalias(deref(t))
			if _, isIface := recv.Underlying().(*types.Interface); !isIface {
				recv = types.NewPointer(recv) // methods of either receiver
			}
			obj, _, _ := types.LookupFieldOrMethod(recv, false, nil, sel)
			if obj == nil {
				ok = false
				break
			}
			t = obj.Type()
		}
		if ok {
			return true
		}
	}
	return false
}

// headings returns the names of the "#### `name`" headings under the "## " or "### "
// section titled section.
func headings(doc, section string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### "):
			in = strings.TrimLeft(line, "# ") == section
		case in && strings.HasPrefix(line, "#### `"):
			out = append(out, strings.Trim(strings.TrimPrefix(line, "#### "), "`"))
		}
	}
	slices.Sort(out)
	return out
}

// eventMarkers points the table of each event's section at the event's payload type: the
// type of a wire package whose EventName method returns that event's name. A section
// whose first table names another type is rewritten (a payload type was renamed); one
// without a table is a problem to place by hand.
func (w *world) eventMarkers(doc string) (string, []string) {
	payloads := map[string]string{} // event name → short name of its payload type
	for _, path := range wirePackages {
		p := w.pkgs[module+"/"+path]
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || fd.Name.Name != "EventName" || fd.Body == nil || len(fd.Body.List) != 1 {
					continue
				}
				ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
				if !ok || len(ret.Results) != 1 {
					continue
				}
				tv, ok := p.TypesInfo.Types[ret.Results[0]]
				if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
					continue
				}
				recv := p.TypesInfo.TypeOf(fd.Recv.List[0].Type)
				if n, ok := types.Unalias(deref(recv)).(*types.Named); ok {
					payloads[constant.StringVal(tv.Value)] = short(n)
				}
			}
		}
	}
	var problems []string
	lines := strings.Split(doc, "\n")
	in := ""
	fixed := map[string]bool{}
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "#"):
			in = ""
			if strings.HasPrefix(line, "#### `cordis/") {
				in = strings.Trim(strings.TrimPrefix(line, "#### "), "`")
			}
		case in != "" && payloads[in] != "" && !fixed[in] && strings.HasPrefix(line, "<!-- gen:fields "):
			lines[i] = "<!-- gen:fields " + payloads[in] + " -->"
			fixed[in] = true
		}
	}
	for ev, typ := range payloads {
		if !fixed[ev] {
			problems = append(problems, fmt.Sprintf("the section of %s has no table of its data: add <!-- gen:fields %s --><!-- end --> under #### `%s`", ev, typ, ev))
		}
	}
	slices.Sort(problems)
	return strings.Join(lines, "\n"), problems
}

var eventRE = regexp.MustCompile(`^cordis/[a-z]+(-[a-z]+)*$`)

// checkEvents compares the document's events with the cordis/ event names the runner and
// the panel's Go code name.
func checkEvents(w *world, doc string) []string {
	var names []string
	for _, p := range w.pkgs {
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && eventRE.MatchString(s) && !slices.Contains(names, s) {
						names = append(names, s)
					}
				}
				return true
			})
		}
	}
	slices.Sort(names)
	var problems []string
	documented := headings(doc, "Events")
	for _, n := range names {
		if !slices.Contains(documented, n) && !strings.Contains(doc, "`"+n+"`") {
			problems = append(problems, fmt.Sprintf("the event %s has no section: add #### `%s` under ### Events", n, n))
		}
	}
	for _, d := range documented {
		if !slices.Contains(names, d) {
			problems = append(problems, fmt.Sprintf("### Events has a section for %s, which no Go code of %v names: remove it or rename it", d, wirePackages))
		}
	}
	return problems
}

// checkVerbs compares the document's verbs with the verbs a panel answers, as it lists
// them to a page that asks for one that does not exist.
func checkVerbs(t *testing.T, doc string) (verbs []string, problems []string) {
	t.Helper()
	ctx := context.Background()
	root := kit.New(nil)
	r, err := runner.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Dispose(ctx); _ = root.Fiber().Dispose(ctx) })
	h, err := panel.New(r, &panel.Options{Token: "contract-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(ctx) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/rpc/no-such-verb", bytes.NewReader([]byte("{}")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer contract-test")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		Error struct{ Code, Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(ans.Error.Message, "the verbs are ")
	if ans.Error.Code != "unknown-verb" || !ok {
		t.Fatalf("an unknown verb was answered %d %+v; the test reads the verbs from that answer's message", resp.StatusCode, ans.Error)
	}
	verbs = strings.Split(strings.TrimSpace(list), ", ")
	slices.Sort(verbs)
	if d := cmp.Diff(verbs, headings(doc, "Verbs")); d != "" {
		return verbs, []string{fmt.Sprintf("### Verbs of %s has a #### section per verb; the panel answers other verbs (-panel +doc):\n%s", contractDoc, d)}
	}
	return verbs, nil
}

// verbShapes checks that the arguments and the answer of each verb, as the panel's Go
// client types them (the method of panel.Client named after the verb), have a table.
func (w *world) verbShapes(doc string, verbs []string) []string {
	p := w.pkgs[module+"/panel"]
	client, ok := p.Types.Scope().Lookup("Client").(*types.TypeName)
	if !ok {
		return nil // no Go client to read the shapes from
	}
	tabled := map[string]bool{}
	for _, m := range markerRE.FindAllStringSubmatch(doc, -1) {
		if n, err := w.lookup(m[2]); err == nil {
			tabled[short(n)] = true
			for _, e := range embedded(n) {
				tabled[short(e)] = true
			}
		}
	}
	var problems []string
	for _, verb := range verbs {
		name := strings.ToUpper(verb[:1]) + verb[1:]
		obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(client.Type()), false, p.Types, name)
		fn, ok := obj.(*types.Func)
		if !ok {
			problems = append(problems, fmt.Sprintf("panel.Client has no method %s for the verb %s, so the test cannot read its shapes", name, verb))
			continue
		}
		sig := fn.Type().(*types.Signature)
		var shapes []types.Type
		for i := 1; i < sig.Params().Len(); i++ { // after ctx
			shapes = append(shapes, sig.Params().At(i).Type())
		}
		for i := range sig.Results().Len() {
			shapes = append(shapes, sig.Results().At(i).Type())
		}
		for _, t := range shapes {
			for t != nil {
				switch u := types.Unalias(t).(type) {
				case *types.Slice:
					t = u.Elem()
					continue
				case *types.Pointer:
					t = u.Elem()
					continue
				case *types.Named:
					if _, isStruct := u.Underlying().(*types.Struct); isStruct && strings.HasPrefix(u.Obj().Pkg().Path(), module) && !tabled[short(u)] {
						problems = append(problems, fmt.Sprintf("the verb %s takes or answers %s, which has no table: add <!-- gen:fields %s --><!-- end --> under #### `%s`", verb, short(u), short(u), verb))
					}
				}
				t = nil
			}
		}
	}
	return problems
}

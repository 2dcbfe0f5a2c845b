package emit

import (
	"bytes"
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cordiskit/cordiskit/catalog"
)

// CatalogPath is the import path of package catalog, which generated code imports.
const CatalogPath = "github.com/cordiskit/cordiskit/catalog"

// CatalogGo renders catalog_gen.go: the catalog as Go data, plus a compile-time guard
// that references every declaration it was built from.
//
// The whole file is written as text laid out as gofmt lays it out (catalogtext.go,
// facadetext.go). The entries, the bulk of a large catalog, name no package but catalog;
// the guard names the declaring packages, as jennifer names them in a jen.File of the
// same code (writeGo), the Catalog variable naming catalog before it.
func CatalogGo(c *catalog.Catalog, pkg, header string) ([]byte, error) {
	head, decls, err := writeGo(&goFile{pkg: pkg, header: header,
		names: map[string]string{CatalogPath: "catalog", KitPath: "kit"}},
		[]string{CatalogPath}, func(q qualifier) ([]string, error) {
			if g := guard(c, q); g != "" {
				return []string{g}, nil
			}
			return nil, nil
		})
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}

	w := newCatWriter(c)
	catalogVar := "// Catalog is the API catalog of the declarations this package was generated from:\n" +
		"// their events, services, tools and the type shapes their signatures reference.\n" +
		"var Catalog = " + composite("&catalog.Catalog",
		field("Events", entries(w, "Event", c.Events, func(e *catalog.Event) string { return e.Name }, w.eventLit)),
		field("Services", entries(w, "Service", c.Services, func(s *catalog.Service) string { return s.Key }, w.serviceLit)),
		field("Tools", entries(w, "Tool", c.Tools, func(t *catalog.Tool) string { return t.Name }, w.toolLit)),
		field("Types", entries(w, "Type", c.Types, func(t *catalog.Type) string { return t.Name }, w.typeLit)),
	)
	decls = append([]string{catalogVar}, decls...)
	decls = append(decls, w.entries...)
	if len(w.sharedDecls) > 0 {
		decls = append(decls, varBlock("The parameters and fields that occur more than once, one variable each.", w.sharedDecls))
	}
	if len(w.decls) > 0 {
		decls = append(decls, varBlock("The Go types the catalog entries refer to, one variable each.", w.decls))
	}
	out := append(bytes.TrimRight(head, "\n"), '\n')
	for _, d := range decls {
		out = append(append(append(out, '\n'), d...), '\n')
	}
	return out, nil
}

// entries declares one package-level variable per entry, named after it, and returns
// []catalog.T{…} of them ("" for none): one flat variable per entry keeps the nesting of
// composite literals (and diffs) local.
func entries[T any](w *catWriter, typ string, xs []T, name func(*T) string, lit func(*T) string) string {
	if len(xs) == 0 {
		return ""
	}
	names := make([]string, len(xs))
	for i := range xs {
		names[i] = w.entry(typ, name(&xs[i]), lit(&xs[i]))
	}
	return lines("[]catalog."+typ, names)
}

// entry declares var cordis<Typ><Name> = catalog.<Typ>{…} and returns its name.
func (w *catWriter) entry(typ, name, lit string) string {
	id := w.unique("cordis" + typ + camel(name))
	w.entries = append(w.entries, "var "+id+" = "+lit)
	return id
}

// unique returns name, or name with a number appended if it is taken.
func (w *catWriter) unique(name string) string {
	id := name
	for i := 2; w.taken[id]; i++ {
		id = name + strconv.Itoa(i)
	}
	w.taken[id] = true
	return id
}

// camel turns an event name, service key or tool name into an identifier part:
// "agent/pre-step" → "AgentPreStep".
func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if up {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			up = false
		default:
			up = true
		}
	}
	return b.String()
}

// str is a string literal, or nothing (the field left out) for "".
func str(s string) string {
	if s == "" {
		return ""
	}
	return strconv.Quote(s)
}

func strs(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	items := make([]string, len(ss))
	for i, s := range ss {
		items[i] = strconv.Quote(s)
	}
	return literalLine("[]string", items)
}

func boolean(b bool) string {
	if !b {
		return ""
	}
	return "true"
}

func ref(r catalog.Ref) string {
	return "catalog.Ref{Pkg: " + strconv.Quote(r.Pkg) + ", Name: " + strconv.Quote(r.Name) + "}"
}

func raw(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	// []byte, not json.RawMessage: assignable all the same, and the entries then need no
	// import but catalog.
	return "[]byte(" + strconv.Quote(string(b)) + ")"
}

// pathOnly drops the line from a "path:line" source: line numbers shift with every
// unrelated edit and would make the generated catalog stale for no reason.
func pathOnly(src string) string {
	if i := strings.LastIndexByte(src, ':'); i >= 0 {
		src = src[:i]
	}
	return str(src)
}

func (w *catWriter) eventLit(e *catalog.Event) string {
	return composite("catalog.Event",
		field("Name", strconv.Quote(e.Name)),
		field("Mode", "catalog."+modeSpec(e.Mode).Const),
		field("Var", ref(e.Var)),
		field("Payload", w.goType(e.Payload)),
		field("Result", w.goType(e.Result)),
		field("Params", w.fieldsLit(e.Params)),
		field("Session", str(e.Session)),
		field("Signature", strconv.Quote(e.Signature)),
		field("Types", strs(e.Types)),
		field("Doc", str(e.Doc)),
		field("Summary", str(e.Summary)),
		field("Source", pathOnly(e.Source)),
	)
}

func (w *catWriter) serviceLit(s *catalog.Service) string {
	typ := w.goType(s.Type) // before the methods', as names are numbered in order of use
	methods := entries(w, "Method", s.Methods, func(m *catalog.Method) string { return s.Key + "/" + m.Name }, w.methodLit)
	return composite("catalog.Service",
		field("Key", strconv.Quote(s.Key)),
		field("Var", ref(s.Var)),
		field("Type", typ),
		field("TypeName", str(s.TypeName)),
		field("Abstract", boolean(s.Abstract)),
		field("Methods", methods),
		field("Types", strs(s.Types)),
		field("Doc", str(s.Doc)),
		field("Summary", str(s.Summary)),
		field("Source", pathOnly(s.Source)),
	)
}

func (w *catWriter) methodLit(m *catalog.Method) string {
	return composite("catalog.Method",
		field("Name", strconv.Quote(m.Name)),
		field("JSName", strconv.Quote(m.JSName)),
		field("Async", boolean(m.Async)),
		field("Params", w.paramsLit(m.Params)),
		field("Results", w.paramsLit(m.Results)),
		field("Returns", str(m.Returns)),
		field("Signature", strconv.Quote(m.Signature)),
		field("Types", strs(m.Types)),
		field("Doc", str(m.Doc)),
		field("Summary", str(m.Summary)),
		field("Source", pathOnly(m.Source)),
	)
}

func (w *catWriter) paramsLit(ps []catalog.Param) string {
	return inlineSlice("[]catalog.Param", ps, func(p *catalog.Param) string {
		var role string
		switch p.Role {
		case catalog.RoleContext:
			role = "catalog.RoleContext"
		case catalog.RoleKit:
			role = "catalog.RoleKit"
		}
		lit := func() string {
			return compact(
				field("Name", str(p.Name)),
				field("JSName", str(p.JSName)),
				field("Go", w.goType(p.Go)),
				field("JS", str(p.JS)),
				field("Role", role),
			)
		}
		return w.shared("catalog.Param", "cordisParam"+upperFirst(cmp.Or(p.JSName, p.Name))+strings.TrimPrefix(goTypeVarName(p.Go), "cordis"), w.paramKey(p), lit)
	})
}

func (w *catWriter) fieldsLit(fs []catalog.Field) string {
	return inlineSlice("[]catalog.Field", fs, func(f *catalog.Field) string {
		lit := func() string {
			return compact(
				field("Name", strconv.Quote(f.Name)),
				field("JSName", strconv.Quote(f.JSName)),
				field("JSONName", strconv.Quote(f.JSONName)),
				field("Go", w.goType(f.Go)),
				field("JS", str(f.JS)),
				field("Optional", boolean(f.Optional)),
				field("Doc", str(f.Doc)),
			)
		}
		return w.shared("catalog.Field", "cordisField"+upperFirst(f.Name)+strings.TrimPrefix(goTypeVarName(f.Go), "cordis"), w.fieldKey(f), lit)
	})
}

// inlineSlice is []T{{…}, …} with the elements written in place, one a line.
func inlineSlice[T any](typ string, xs []T, lit func(*T) string) string {
	if len(xs) == 0 {
		return ""
	}
	items := make([]string, len(xs))
	for i := range xs {
		items[i] = lit(&xs[i])
	}
	return lines(typ, items)
}

// shared returns a parameter or field literal, or — when the same one occurs more than
// once in the catalog (a leading ctx, a trailing error, a payload field every event of
// a family repeats) — the name of the one variable that holds it.
func (w *catWriter) shared(typ, base string, key litKey, lit func() string) string {
	if w.uses[key] < 2 {
		return lit()
	}
	if name, ok := w.sharedByKey[key]; ok {
		return name
	}
	name := w.unique(base)
	w.sharedByKey[key] = name
	w.sharedDecls[name] = typ + lit()
	return name
}

// A litKey identifies a parameter or field literal: equal keys, equal literals.
type litKey struct {
	field                              bool // a catalog.Field, else a catalog.Param
	name, jsName, jsonName, goType, js string
	role                               catalog.Role
	optional                           bool
	doc                                string
}

func (w *catWriter) paramKey(p *catalog.Param) litKey {
	return litKey{name: p.Name, jsName: p.JSName, goType: w.typeString(p.Go), js: p.JS, role: p.Role}
}

func (w *catWriter) fieldKey(f *catalog.Field) litKey {
	return litKey{field: true, name: f.Name, jsName: f.JSName, jsonName: f.JSONName, goType: w.typeString(f.Go),
		js: f.JS, optional: f.Optional, doc: f.Doc}
}

// typeString is t.String(), computed once per GoType.
func (w *catWriter) typeString(t *catalog.GoType) string {
	if t == nil {
		return ""
	}
	s, ok := w.typeStrings[t]
	if !ok {
		s = t.String()
		w.typeStrings[t] = s
	}
	return s
}

// count records how often each parameter and field occurs, for shared.
func (w *catWriter) count(c *catalog.Catalog) {
	for i := range c.Events {
		for j := range c.Events[i].Params {
			w.uses[w.fieldKey(&c.Events[i].Params[j])]++
		}
	}
	for i := range c.Services {
		for _, m := range c.Services[i].Methods {
			for j := range m.Params {
				w.uses[w.paramKey(&m.Params[j])]++
			}
			for j := range m.Results {
				w.uses[w.paramKey(&m.Results[j])]++
			}
		}
	}
	for i := range c.Types {
		for j := range c.Types[i].Fields {
			w.uses[w.fieldKey(&c.Types[i].Fields[j])]++
		}
	}
}

func upperFirst(s string) string {
	if s == "" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func (w *catWriter) toolLit(t *catalog.Tool) string {
	return composite("catalog.Tool",
		field("Name", strconv.Quote(t.Name)),
		field("Var", ref(t.Var)),
		field("Input", w.goType(t.Input)),
		field("Output", w.goType(t.Output)),
		field("InputSchema", raw(t.InputSchema)),
		field("OutputSchema", raw(t.OutputSchema)),
		field("Doc", str(t.Doc)),
		field("Summary", str(t.Summary)),
		field("Source", pathOnly(t.Source)),
	)
}

var typeKindNames = map[catalog.TypeKind]string{
	catalog.TypeStruct: "TypeStruct", catalog.TypeEnum: "TypeEnum", catalog.TypeValue: "TypeValue",
}

func (w *catWriter) typeLit(t *catalog.Type) string {
	enum := inlineSlice("[]catalog.EnumValue", t.Enum, func(v *catalog.EnumValue) string {
		return compact(field("Name", strconv.Quote(v.Name)), field("Value", strconv.Quote(v.Value)), field("Doc", str(v.Doc)))
	})
	return composite("catalog.Type",
		field("Name", strconv.Quote(t.Name)),
		field("Go", ref(t.Go)),
		field("Kind", "catalog."+typeKindNames[t.Kind]),
		field("Underlying", w.goType(t.Underlying)),
		field("Fields", w.fieldsLit(t.Fields)),
		field("Enum", enum),
		field("JS", str(t.JS)),
		field("Decl", strconv.Quote(t.Decl)),
		field("Refs", strs(t.Refs)),
		field("Doc", str(t.Doc)),
		field("Summary", str(t.Summary)),
		field("Source", pathOnly(t.Source)),
	)
}

var kindNames = map[catalog.Kind]string{
	catalog.KindBasic: "KindBasic", catalog.KindNamed: "KindNamed", catalog.KindPointer: "KindPointer",
	catalog.KindSlice: "KindSlice", catalog.KindArray: "KindArray", catalog.KindMap: "KindMap",
	catalog.KindFunc: "KindFunc", catalog.KindAny: "KindAny", catalog.KindStruct: "KindStruct",
}

// A catWriter writes the catalog's entries. Every distinct GoType becomes one
// package-level variable that entries refer to by name: the file stays a fraction of the
// size and flat, so that it reads well and later type checks of the package stay fast.
type catWriter struct {
	byKey   map[string]string // GoType.String() → variable name
	taken   map[string]bool   // variable names in use
	decls   map[string]string // GoType variable → its value
	entries []string          // the entry variables' declarations, in catalog order

	uses        map[litKey]int    // parameter or field literal → occurrences
	sharedByKey map[litKey]string // parameter or field literal → variable name
	sharedDecls map[string]string // shared variable → its value
	typeStrings map[*catalog.GoType]string
}

func newCatWriter(c *catalog.Catalog) *catWriter {
	w := &catWriter{
		byKey: map[string]string{}, taken: map[string]bool{}, decls: map[string]string{},
		uses: map[litKey]int{}, sharedByKey: map[litKey]string{}, sharedDecls: map[string]string{},
		typeStrings: map[*catalog.GoType]string{},
	}
	w.count(c)
	return w
}

// goType returns the name of t's variable, declaring it (and its parts) on first use;
// "" for nil.
func (w *catWriter) goType(t *catalog.GoType) string {
	if t == nil {
		return ""
	}
	key := w.typeString(t)
	if name, ok := w.byKey[key]; ok {
		return name
	}
	name := w.unique(goTypeVarName(t))
	w.byKey[key] = name

	fields := []kv{
		field("Kind", "catalog."+kindNames[t.Kind]),
		field("Pkg", str(t.Pkg)),
		field("Name", str(t.Name)),
		field("Elem", w.goType(t.Elem)),
		field("Key", w.goType(t.Key)),
	}
	if t.Len != 0 {
		fields = append(fields, field("Len", strconv.FormatInt(t.Len, 10)))
	}
	if len(t.Params) > 0 {
		fields = append(fields, field("Params", w.goTypes(t.Params)))
	}
	if len(t.Results) > 0 {
		fields = append(fields, field("Results", w.goTypes(t.Results)))
	}
	fields = append(fields, field("Variadic", boolean(t.Variadic)))
	w.decls[name] = "&catalog.GoType" + compact(fields...)
	return name
}

func (w *catWriter) goTypes(ts []*catalog.GoType) string {
	items := make([]string, len(ts))
	for i, t := range ts {
		items[i] = w.goType(t)
	}
	return literalLine("[]*catalog.GoType", items)
}

// goTypeVarName spells a GoType as an identifier: "[]*kit.ToolSchema" is
// cordisSliceOfPtrToolSchema. Names stay the same when unrelated types come and go, so
// diffs of the generated file stay small.
func goTypeVarName(t *catalog.GoType) string {
	var b strings.Builder
	b.WriteString("cordis")
	var walk func(t *catalog.GoType)
	walk = func(t *catalog.GoType) {
		switch t.Kind {
		case catalog.KindBasic, catalog.KindNamed:
			b.WriteString(strings.ToUpper(t.Name[:1]) + t.Name[1:])
		case catalog.KindPointer:
			b.WriteString("Ptr")
			walk(t.Elem)
		case catalog.KindSlice:
			b.WriteString("SliceOf")
			walk(t.Elem)
		case catalog.KindArray:
			b.WriteString("Array" + strconv.FormatInt(t.Len, 10) + "Of")
			walk(t.Elem)
		case catalog.KindMap:
			b.WriteString("MapOf")
			walk(t.Key)
			b.WriteString("To")
			walk(t.Elem)
		case catalog.KindFunc:
			b.WriteString("Func")
			for _, p := range t.Params {
				walk(p)
			}
			if len(t.Results) > 0 {
				b.WriteString("Returning")
				for _, r := range t.Results {
					walk(r)
				}
			}
		case catalog.KindAny:
			b.WriteString("Any")
		case catalog.KindStruct:
			b.WriteString("EmptyStruct")
		}
	}
	walk(t)
	return b.String()
}

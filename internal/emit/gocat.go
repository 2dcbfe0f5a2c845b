package emit

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/cordiskit/cordiskit/catalog"
)

// CatalogPath is the import path of package catalog, which generated code imports.
const CatalogPath = "github.com/cordiskit/cordiskit/catalog"

// CatalogGo renders catalog_gen.go: the catalog as Go data, plus a compile-time guard
// that references every declaration it was built from.
func CatalogGo(c *catalog.Catalog, pkg, header string) ([]byte, error) {
	f := jen.NewFile(pkg)
	f.HeaderComment(header)
	f.ImportName(CatalogPath, "catalog")
	f.ImportName(KitPath, "kit")

	w := newCatWriter(c)
	lit := composite(
		field("Events", sliceOf(w, "Event", c.Events, func(e *catalog.Event) string { return e.Name }, w.eventLit)),
		field("Services", sliceOf(w, "Service", c.Services, func(s *catalog.Service) string { return s.Key }, w.serviceLit)),
		field("Tools", sliceOf(w, "Tool", c.Tools, func(t *catalog.Tool) string { return t.Name }, w.toolLit)),
		field("Types", sliceOf(w, "Type", c.Types, func(t *catalog.Type) string { return t.Name }, w.typeLit)),
	)
	f.Comment("Catalog is the API catalog of the declarations this package was generated from:")
	f.Comment("their events, services, tools and the type shapes their signatures reference.")
	f.Var().Id("Catalog").Op("=").Op("&").Qual(CatalogPath, "Catalog").Add(lit)
	f.Line()
	guard(f, c)

	decls := w.entries
	if len(w.sharedDecls) > 0 {
		decls = append(decls, varBlock("The parameters and fields that occur more than once, one variable each.", w.sharedDecls))
	}
	if len(w.decls) > 0 {
		decls = append(decls, varBlock("The Go types the catalog entries refer to, one variable each.", w.decls))
	}
	// The head of the file (imports, Catalog, the guard) renders while the entries do.
	var buf bytes.Buffer
	var headErr error
	var wg sync.WaitGroup
	wg.Go(func() { headErr = f.Render(&buf) })
	rest, err := renderDecls(decls)
	wg.Wait()
	if err := errors.Join(headErr, err); err != nil {
		return nil, err
	}
	return append(append(bytes.TrimRight(buf.Bytes(), "\n"), "\n\n"...), rest...), nil
}

// renderDecls renders top-level declarations that name no package but catalog, in
// parallel chunks through jennifer (each chunk with its own jen.File, so nothing is
// shared). gofmt formats each top-level declaration on its own, so joining the chunks
// gives the bytes formatting the whole would; rendering the entries of a large catalog
// is most of a generator run, and this spreads it over the machine's cores.
func renderDecls(decls []jen.Code) ([]byte, error) {
	n := min(runtime.GOMAXPROCS(0), 8, max(1, len(decls)/64))
	out := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		chunk := decls[i*len(decls)/n : (i+1)*len(decls)/n]
		wg.Go(func() {
			f := jen.NewFile("x")
			f.ImportName(CatalogPath, "catalog")
			var b bytes.Buffer
			errs[i] = jen.Custom(jen.Options{Separator: "\n\n"}, chunk...).RenderWithFile(&b, f)
			out[i] = bytes.TrimSpace(b.Bytes())
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, o := range out {
		if len(o) > 0 {
			b.Write(o)
			b.WriteString("\n\n")
		}
	}
	return append(bytes.TrimRight(b.Bytes(), "\n"), '\n'), nil
}

// A kv is one field of a composite literal; a nil value leaves the field out.
type kv struct {
	key string
	val jen.Code
}

func field(key string, val jen.Code) kv { return kv{key, val} }

// composite renders {Key: value, …} one field per line, in the order given, leaving out
// zero values so the file stays readable.
func composite(fields ...kv) jen.Code {
	return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, pairs(fields)...)
}

// compact renders {Key: value, …} on one line: for the small structs (parameters, fields)
// that come in lists, which then read as tables.
func compact(fields ...kv) jen.Code {
	return jen.Values(pairs(fields)...)
}

func pairs(fields []kv) []jen.Code {
	var items []jen.Code
	for _, f := range fields {
		if f.val != nil {
			items = append(items, jen.Id(f.key).Op(":").Add(f.val))
		}
	}
	return items
}

// sliceOf renders []catalog.T{…} whose elements are package-level variables, one per
// entry, named after the entry: gofmt's cost grows with the nesting depth of a composite
// literal, and one flat variable per entry keeps it (and diffs) local.
func sliceOf[T any](w *catWriter, typ string, xs []T, name func(*T) string, lit func(*T) jen.Code) jen.Code {
	if len(xs) == 0 {
		return nil
	}
	items := make([]jen.Code, len(xs))
	for i := range xs {
		items[i] = w.entry(typ, name(&xs[i]), lit(&xs[i]))
	}
	return jen.Index().Qual(CatalogPath, typ).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, items...)
}

// inlineSlice renders []catalog.T{{…}, …} with the elements written in place.
func inlineSlice[T any](typ string, xs []T, lit func(*T) jen.Code) jen.Code {
	if len(xs) == 0 {
		return nil
	}
	items := make([]jen.Code, len(xs))
	for i := range xs {
		items[i] = lit(&xs[i])
	}
	return jen.Index().Qual(CatalogPath, typ).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, items...)
}

// entry declares var cordis<Typ><Name> = catalog.<Typ>{…} and returns its name.
func (w *catWriter) entry(typ, name string, lit jen.Code) jen.Code {
	id := w.unique("cordis" + typ + camel(name))
	w.entries = append(w.entries, jen.Var().Id(id).Op("=").Qual(CatalogPath, typ).Add(lit))
	return jen.Id(id)
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

func str(s string) jen.Code {
	if s == "" {
		return nil
	}
	return jen.Lit(s)
}

func strs(ss []string) jen.Code {
	if len(ss) == 0 {
		return nil
	}
	items := make([]jen.Code, len(ss))
	for i, s := range ss {
		items[i] = jen.Lit(s)
	}
	return jen.Index().String().Values(items...)
}

func boolean(b bool) jen.Code {
	if !b {
		return nil
	}
	return jen.True()
}

func ref(r catalog.Ref) jen.Code {
	return jen.Qual(CatalogPath, "Ref").Values(jen.Id("Pkg").Op(":").Lit(r.Pkg), jen.Id("Name").Op(":").Lit(r.Name))
}

func raw(b []byte) jen.Code {
	if len(b) == 0 {
		return nil
	}
	// []byte, not json.RawMessage: assignable all the same, and the entries then need no
	// import but catalog (see renderDecls).
	return jen.Index().Byte().Call(jen.Lit(string(b)))
}

// pathOnly drops the line from a "path:line" source: line numbers shift with every
// unrelated edit and would make the generated catalog stale for no reason.
func pathOnly(src string) jen.Code {
	if i := strings.LastIndexByte(src, ':'); i >= 0 {
		src = src[:i]
	}
	return str(src)
}

var modeNames = map[catalog.Mode]string{
	catalog.ModeEmit: "ModeEmit", catalog.ModeParallel: "ModeParallel", catalog.ModeSerial: "ModeSerial",
	catalog.ModeBail: "ModeBail", catalog.ModeWaterfall: "ModeWaterfall",
}

func (w *catWriter) eventLit(e *catalog.Event) jen.Code {
	return composite(
		field("Name", jen.Lit(e.Name)),
		field("Mode", jen.Qual(CatalogPath, modeNames[e.Mode])),
		field("Var", ref(e.Var)),
		field("Payload", w.goType(e.Payload)),
		field("Result", w.goType(e.Result)),
		field("Params", w.fieldsLit(e.Params)),
		field("Signature", jen.Lit(e.Signature)),
		field("Types", strs(e.Types)),
		field("Doc", str(e.Doc)),
		field("Summary", str(e.Summary)),
		field("Source", pathOnly(e.Source)),
	)
}

func (w *catWriter) serviceLit(s *catalog.Service) jen.Code {
	return composite(
		field("Key", jen.Lit(s.Key)),
		field("Var", ref(s.Var)),
		field("Type", w.goType(s.Type)),
		field("TypeName", str(s.TypeName)),
		field("Abstract", boolean(s.Abstract)),
		field("Methods", sliceOf(w, "Method", s.Methods, func(m *catalog.Method) string { return s.Key + "/" + m.Name }, w.methodLit)),
		field("Types", strs(s.Types)),
		field("Doc", str(s.Doc)),
		field("Summary", str(s.Summary)),
		field("Source", pathOnly(s.Source)),
	)
}

func (w *catWriter) methodLit(m *catalog.Method) jen.Code {
	return composite(
		field("Name", jen.Lit(m.Name)),
		field("JSName", jen.Lit(m.JSName)),
		field("Async", boolean(m.Async)),
		field("Params", w.paramsLit(m.Params)),
		field("Results", w.paramsLit(m.Results)),
		field("Returns", str(m.Returns)),
		field("Signature", jen.Lit(m.Signature)),
		field("Types", strs(m.Types)),
		field("Doc", str(m.Doc)),
		field("Summary", str(m.Summary)),
		field("Source", pathOnly(m.Source)),
	)
}

func (w *catWriter) paramsLit(ps []catalog.Param) jen.Code {
	return inlineSlice("Param", ps, func(p *catalog.Param) jen.Code {
		var role jen.Code
		switch p.Role {
		case catalog.RoleContext:
			role = jen.Qual(CatalogPath, "RoleContext")
		case catalog.RoleKit:
			role = jen.Qual(CatalogPath, "RoleKit")
		}
		lit := func() jen.Code {
			return compact(
				field("Name", str(p.Name)),
				field("JSName", str(p.JSName)),
				field("Go", w.goType(p.Go)),
				field("JS", str(p.JS)),
				field("Role", role),
			)
		}
		return w.shared("Param", "cordisParam"+upperFirst(cmp.Or(p.JSName, p.Name))+strings.TrimPrefix(goTypeVarName(p.Go), "cordis"), paramKey(p), lit)
	})
}

func (w *catWriter) fieldsLit(fs []catalog.Field) jen.Code {
	return inlineSlice("Field", fs, func(f *catalog.Field) jen.Code {
		lit := func() jen.Code {
			return compact(
				field("Name", jen.Lit(f.Name)),
				field("JSName", jen.Lit(f.JSName)),
				field("JSONName", jen.Lit(f.JSONName)),
				field("Go", w.goType(f.Go)),
				field("JS", str(f.JS)),
				field("Optional", boolean(f.Optional)),
				field("Doc", str(f.Doc)),
			)
		}
		return w.shared("Field", "cordisField"+upperFirst(f.Name)+strings.TrimPrefix(goTypeVarName(f.Go), "cordis"), fieldKey(f), lit)
	})
}

// shared returns a parameter or field literal, or — when the same one occurs more than
// once in the catalog (a leading ctx, a trailing error, a payload field every event of
// a family repeats) — the name of the one variable that holds it.
func (w *catWriter) shared(typ, base, key string, lit func() jen.Code) jen.Code {
	if w.uses[key] < 2 {
		return lit()
	}
	if name, ok := w.sharedByKey[key]; ok {
		return jen.Id(name)
	}
	name := w.unique(base)
	w.sharedByKey[key] = name
	w.sharedDecls[name] = jen.Id(name).Op("=").Qual(CatalogPath, typ).Add(lit())
	return jen.Id(name)
}

func paramKey(p *catalog.Param) string {
	return fmt.Sprintf("param %q %q %s %q %q", p.Name, p.JSName, p.Go, p.JS, p.Role)
}

func fieldKey(f *catalog.Field) string {
	return fmt.Sprintf("field %q %q %q %s %q %v %q", f.Name, f.JSName, f.JSONName, f.Go, f.JS, f.Optional, f.Doc)
}

// count records how often each parameter and field occurs, for shared.
func (w *catWriter) count(c *catalog.Catalog) {
	for i := range c.Events {
		for j := range c.Events[i].Params {
			w.uses[fieldKey(&c.Events[i].Params[j])]++
		}
	}
	for i := range c.Services {
		for _, m := range c.Services[i].Methods {
			for j := range m.Params {
				w.uses[paramKey(&m.Params[j])]++
			}
			for j := range m.Results {
				w.uses[paramKey(&m.Results[j])]++
			}
		}
	}
	for i := range c.Types {
		for j := range c.Types[i].Fields {
			w.uses[fieldKey(&c.Types[i].Fields[j])]++
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

func (w *catWriter) toolLit(t *catalog.Tool) jen.Code {
	return composite(
		field("Name", jen.Lit(t.Name)),
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

func (w *catWriter) typeLit(t *catalog.Type) jen.Code {
	var enum jen.Code
	if len(t.Enum) > 0 {
		enum = inlineSlice("EnumValue", t.Enum, func(v *catalog.EnumValue) jen.Code {
			return compact(field("Name", jen.Lit(v.Name)), field("Value", jen.Lit(v.Value)), field("Doc", str(v.Doc)))
		})
	}
	return composite(
		field("Name", jen.Lit(t.Name)),
		field("Go", ref(t.Go)),
		field("Kind", jen.Qual(CatalogPath, typeKindNames[t.Kind])),
		field("Underlying", w.goType(t.Underlying)),
		field("Fields", w.fieldsLit(t.Fields)),
		field("Enum", enum),
		field("JS", str(t.JS)),
		field("Decl", jen.Lit(t.Decl)),
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

// A catWriter renders the catalog literal. Every distinct GoType becomes one
// package-level variable that entries refer to by name: the file stays a fraction of the
// size and flat enough that gofmt (which jennifer runs, and whose cost grows with the
// nesting of composite literals) and later type checks of the package stay fast.
type catWriter struct {
	byKey   map[string]string // GoType.String() → variable name
	taken   map[string]bool   // variable names in use
	decls   map[string]jen.Code
	entries []jen.Code // the entry variables, in catalog order

	uses        map[string]int    // parameter or field literal → occurrences
	sharedByKey map[string]string // parameter or field literal → variable name
	sharedDecls map[string]jen.Code
}

func newCatWriter(c *catalog.Catalog) *catWriter {
	w := &catWriter{
		byKey: map[string]string{}, taken: map[string]bool{}, decls: map[string]jen.Code{},
		uses: map[string]int{}, sharedByKey: map[string]string{}, sharedDecls: map[string]jen.Code{},
	}
	w.count(c)
	return w
}

// goType returns the name of t's variable, declaring it (and its parts) on first use.
func (w *catWriter) goType(t *catalog.GoType) jen.Code {
	if t == nil {
		return nil
	}
	key := t.String()
	if name, ok := w.byKey[key]; ok {
		return jen.Id(name)
	}
	name := w.unique(goTypeVarName(t))
	w.byKey[key] = name

	items := []jen.Code{jen.Id("Kind").Op(":").Qual(CatalogPath, kindNames[t.Kind])}
	add := func(key string, val jen.Code) {
		if val != nil {
			items = append(items, jen.Id(key).Op(":").Add(val))
		}
	}
	add("Pkg", str(t.Pkg))
	add("Name", str(t.Name))
	add("Elem", w.goType(t.Elem))
	add("Key", w.goType(t.Key))
	if t.Len != 0 {
		add("Len", jen.Lit(int(t.Len)))
	}
	if len(t.Params) > 0 {
		add("Params", w.goTypes(t.Params))
	}
	if len(t.Results) > 0 {
		add("Results", w.goTypes(t.Results))
	}
	add("Variadic", boolean(t.Variadic))
	w.decls[name] = jen.Id(name).Op("=").Op("&").Qual(CatalogPath, "GoType").Values(items...)
	return jen.Id(name)
}

func (w *catWriter) goTypes(ts []*catalog.GoType) jen.Code {
	items := make([]jen.Code, len(ts))
	for i, t := range ts {
		items[i] = w.goType(t)
	}
	return jen.Index().Op("*").Qual(CatalogPath, "GoType").Values(items...)
}

// varBlock declares variables, sorted by name, in one var ( … ) block.
func varBlock(comment string, decls map[string]jen.Code) jen.Code {
	names := make([]string, 0, len(decls))
	for name := range decls {
		names = append(names, name)
	}
	slices.Sort(names)
	defs := make([]jen.Code, len(names))
	for i, name := range names {
		defs[i] = decls[name]
	}
	return jen.Comment(comment).Line().Var().Defs(defs...)
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

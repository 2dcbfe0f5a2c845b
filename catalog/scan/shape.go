package scan

import (
	"cmp"
	"fmt"
	"go/constant"
	"go/types"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/catalog"
)

// shape describes a named type a signature references: its fields, enum values or
// underlying type, its declaration text and the other types it references.
func (b *builder) shape(e *typeEntry) (t catalog.Type) {
	obj := e.named.Obj()
	pkg, name := obj.Pkg().Path(), obj.Name()
	doc := b.doc(obj.Pos())
	t = catalog.Type{
		Name: name, Go: catalog.Ref{Pkg: pkg, Name: name},
		Doc: doc.text, Summary: synopsis(doc.text), Source: b.source(obj.Pos()),
	}
	if !b.sourcePkgs[pkg] {
		b.errorf(e.use.pos, RuleType, "%s uses type %s.%s, whose package the generator did not load, so its docs cannot be read: add %s to the patterns, or use a type declared in them",
			e.use.what, pkg, name, pkg)
		t.Source = ""
	} else {
		b.requireDoc(doc, obj.Pos(), "type "+name, "a signature references it, and its doc is shown with its shape")
	}

	b.startRefs()
	defer func() {
		delete(b.refs, name)
		t.Refs = b.endRefs()
	}()
	switch u := e.named.Underlying().(type) {
	case *types.Struct:
		t.Kind = catalog.TypeStruct
		t.Fields = b.fields(u, name, nil)
	default:
		s := site{pos: obj.Pos(), what: "the underlying type of " + name}
		t.Underlying, t.JS, _ = b.convert(u, s)
		t.Kind = catalog.TypeValue
		if bt, ok := u.(*types.Basic); ok && bt.Info()&types.IsString != 0 {
			if t.Enum = b.enum(e.named); len(t.Enum) > 0 {
				t.Kind = catalog.TypeEnum
			}
		}
	}
	t.Decl = declText(&t)
	return t
}

// fields lists a struct's JavaScript-facing fields, promoting the fields of embedded
// structs as encoding/json does. seen guards against embedding cycles.
func (b *builder) fields(st *types.Struct, owner string, seen []*types.Named) []catalog.Field {
	var out []catalog.Field
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := parseJSONTag(st.Tag(i))
		doc := b.doc(f.Pos())
		if tag.skip || doc.internal || (!f.Exported() && !f.Embedded()) {
			continue
		}
		if f.Embedded() && tag.name == "" {
			if n, isNamed := types.Unalias(f.Type()).(*types.Named); isNamed {
				if est, isStruct := n.Underlying().(*types.Struct); isStruct {
					if !slices.Contains(seen, n) {
						out = append(out, b.fields(est, owner, append(seen, n))...)
					}
					continue
				}
			}
			if !f.Exported() {
				continue
			}
			if _, isPtr := types.Unalias(f.Type()).(*types.Pointer); isPtr {
				b.errorf(f.Pos(), RuleUnsupported, "embedded field %s of %s is a pointer: embed the struct itself, or name the field", f.Name(), owner)
				continue
			}
		}
		fd := catalog.Field{
			Name: f.Name(), JSName: cmp.Or(tag.name, lowerCamel(f.Name())), JSONName: cmp.Or(tag.name, f.Name()),
			Optional: tag.omitempty, Doc: doc.text,
		}
		fd.Go, fd.JS, _ = b.convert(f.Type(), site{pos: f.Pos(), what: fmt.Sprintf("field %s of %s", f.Name(), owner)})
		if fd.Go != nil && fd.Go.Kind == catalog.KindPointer {
			fd.Optional = true
		}
		out = append(out, fd)
	}
	if seen == nil {
		b.checkFieldNames(out, owner, st)
	}
	return out
}

// checkFieldNames reports two fields that JavaScript (or JSON) would see under one name.
func (b *builder) checkFieldNames(fs []catalog.Field, owner string, st *types.Struct) {
	if len(fs) < 2 {
		return
	}
	pos := st.Field(0).Pos()
	for _, key := range []func(catalog.Field) string{
		func(f catalog.Field) string { return f.JSName },
		func(f catalog.Field) string { return f.JSONName },
	} {
		seen := map[string]string{}
		for _, f := range fs {
			if old, ok := seen[key(f)]; ok {
				b.errorf(pos, RuleDuplicate, "fields %s and %s of %s both appear as %q: rename one or give one a different json tag", old, f.Name, owner, key(f))
				return
			}
			seen[key(f)] = f.Name
		}
	}
}

// enum returns the constants of a named string type declared in its package, in
// declaration order.
func (b *builder) enum(n *types.Named) []catalog.EnumValue {
	scope := n.Obj().Pkg().Scope()
	var consts []*types.Const
	for _, name := range scope.Names() {
		c, ok := scope.Lookup(name).(*types.Const)
		if ok && c.Exported() && types.Identical(c.Type(), n) {
			consts = append(consts, c)
		}
	}
	slices.SortFunc(consts, func(x, y *types.Const) int { return b.byPosition(x.Pos(), y.Pos()) })
	out := make([]catalog.EnumValue, len(consts))
	for i, c := range consts {
		out[i] = catalog.EnumValue{Name: c.Name(), Value: constant.StringVal(c.Val()), Doc: b.doc(c.Pos()).text}
	}
	return out
}

// declText renders a type's shape as TypeScript-like text, with the type's summary and
// its fields' docs as comments: what a reader needs before assuming a field is a string.
func declText(t *catalog.Type) string {
	var b strings.Builder
	if t.Summary != "" {
		b.WriteString("// " + t.Summary + "\n")
	}
	switch t.Kind {
	case catalog.TypeStruct:
		if len(t.Fields) == 0 {
			b.WriteString("interface " + t.Name + " {}")
			break
		}
		b.WriteString("interface " + t.Name + " {\n")
		for _, f := range t.Fields {
			for line := range strings.SplitSeq(f.Doc, "\n") {
				if line != "" {
					b.WriteString("  // " + line + "\n")
				}
			}
			b.WriteString("  " + f.JSName + optMark(f.Optional) + ": " + f.JS + unitNote(f.Go) + "\n")
		}
		b.WriteString("}")
	case catalog.TypeEnum:
		enumDecl(&b, t)
	default:
		b.WriteString("type " + t.Name + " = " + t.JS)
	}
	return b.String()
}

// unitNote is the comment after a field that holds durations: JavaScript sees a
// time.Duration as a number of milliseconds, and the number alone does not say so.
func unitNote(gt *catalog.GoType) string {
	for t := gt; t != nil; t = t.Elem {
		if t.Is("time", "Duration") {
			return " // milliseconds"
		}
	}
	return ""
}

// zeroEnumNote describes the empty string in the union of an enum whose constants lack
// it: Go's zero value, which the façade sends for an unset field and accepts back.
const zeroEnumNote = "unset: Go's zero value"

// enumDecl writes an enum as a union of its values. When a constant has a doc comment the
// union takes one line per value with the doc above it, as a struct's fields do: what each
// value means is what a reader needs before picking one.
func enumDecl(b *strings.Builder, t *catalog.Type) {
	documented, hasZero := false, false
	vals := make([]string, len(t.Enum))
	for i, v := range t.Enum {
		vals[i] = jsQuote(v.Value)
		documented = documented || v.Doc != ""
		hasZero = hasZero || v.Value == ""
	}
	if !documented {
		b.WriteString("type " + t.Name + " = " + strings.Join(vals, " | "))
		if !hasZero {
			b.WriteString(" | '' // '': " + zeroEnumNote)
		}
		return
	}
	b.WriteString("type " + t.Name + " =")
	for i, v := range t.Enum {
		b.WriteString("\n")
		for line := range strings.SplitSeq(v.Doc, "\n") {
			if line != "" {
				b.WriteString("  // " + line + "\n")
			}
		}
		b.WriteString("  | " + vals[i])
	}
	if !hasZero {
		b.WriteString("\n  // " + zeroEnumNote + "\n  | ''")
	}
}

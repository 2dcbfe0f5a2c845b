package scan

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/cordiskit/cordiskit/catalog"
)

// A builder turns the declarations of one tier into a catalog. It collects the named
// types the signatures reference and shapes them once every signature is known.
type builder struct {
	fset       *token.FileSet
	docs       docIndex
	sourcePkgs map[string]bool // import paths type-checked from source: their docs are known
	diags      *Diagnostics    // nil: problems are not reported (the inherited tier)

	cat    catalog.Catalog
	types  map[string]*typeEntry // by "import/path.Name"
	byName map[string]*typeEntry // by Name, to catch two packages' types of one name
	queue  []*typeEntry
	refs   map[string]bool // the catalog types the signature being converted references

	declPos map[string]token.Pos // "event x" → where it was first declared
	toolPos map[string]token.Pos // tool name → its declaration
	modRoot map[string]string    // directory → module root, cached
}

// A typeEntry is a named type some signature references.
type typeEntry struct {
	named *types.Named
	use   site // the first use, for problems that have no better position
}

func newBuilder(fset *token.FileSet, docs docIndex, sourcePkgs map[string]bool, diags *Diagnostics) *builder {
	return &builder{
		fset: fset, docs: docs, sourcePkgs: sourcePkgs, diags: diags,
		types: map[string]*typeEntry{}, byName: map[string]*typeEntry{},
		declPos: map[string]token.Pos{}, toolPos: map[string]token.Pos{}, modRoot: map[string]string{},
	}
}

func (b *builder) errorf(pos token.Pos, rule, format string, args ...any) {
	if b.diags == nil {
		return
	}
	p := b.fset.Position(pos)
	*b.diags = append(*b.diags, Diagnostic{Path: p.Filename, Line: p.Line, Col: p.Column, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// addDecls adds every declaration of package p and returns how many it found.
func (b *builder) addDecls(p *packages.Package) int {
	decls := b.findDecls(p)
	for _, d := range decls {
		switch d.kind {
		case declEvent:
			b.addEvent(d)
		case declService:
			b.addService(d)
		case declTool:
			b.addTool(d)
		}
	}
	return len(decls)
}

// finish shapes the referenced types and returns the sorted catalog.
func (b *builder) finish() *catalog.Catalog {
	for len(b.queue) > 0 {
		e := b.queue[0]
		b.queue = b.queue[1:]
		b.cat.Types = append(b.cat.Types, b.shape(e))
	}
	for _, t := range b.cat.Tools {
		b.checkJSON(t.Input, t.Name, "input", "", t.Input, nil)
		b.checkJSON(t.Output, t.Name, "output", "", t.Output, nil)
	}
	c := b.cat
	c.Sort()
	return &c
}

// checkJSON reports values in a tool's types that JSON cannot carry as the rest of the
// runtime sees them, which the signature rules allow elsewhere: an error (it marshals as
// {}) and a time.Duration (JavaScript reads one as milliseconds, encoding/json as
// nanoseconds, so a unit would change silently between a mount and the tool). at is the
// field path so far ("EchoInput.Delay") and field the type of that field, which gt is
// part of.
func (b *builder) checkJSON(gt *catalog.GoType, tool, which, at string, field *catalog.GoType, seen []string) {
	in := ""
	if at != "" {
		in = " (at " + at + ")"
	}
	switch {
	case gt == nil:
	case gt.Kind == catalog.KindBasic && gt.Name == "error":
		b.errorf(b.toolPos[tool], RuleUnsupported, "the %s of tool %q contains an error value%s, which JSON cannot carry (it marshals as {}): use a string", which, tool, in)
	case gt.Is("time", "Duration"):
		name := "Duration"
		if i := strings.LastIndexByte(at, '.'); i >= 0 {
			name = at[i+1:]
		}
		hint := strings.ReplaceAll(field.String(), "time.Duration", "int")
		b.errorf(b.toolPos[tool], RuleUnsupported, "the %s of tool %q contains a time.Duration%s, which JavaScript reads as milliseconds and encoding/json as nanoseconds, so its unit would change silently between a mount and the tool: "+
			"declare an integer with the unit in its name instead (%sMs %s `json:\"%sMs\"`) and convert with time.Duration(x)*time.Millisecond", which, tool, in, name, hint, lowerCamel(name))
	case gt.Kind == catalog.KindNamed:
		key := gt.Pkg + "." + gt.Name
		if slices.Contains(seen, key) {
			return
		}
		for _, t := range b.cat.Types {
			if t.Go.Pkg == gt.Pkg && t.Go.Name == gt.Name {
				b.checkJSON(t.Underlying, tool, which, at, field, append(seen, key))
				for _, f := range t.Fields {
					b.checkJSON(f.Go, tool, which, t.Name+"."+f.Name, f.Go, append(seen, key))
				}
			}
		}
	default:
		b.checkJSON(gt.Elem, tool, which, at, field, seen)
		b.checkJSON(gt.Key, tool, which, at, field, seen)
	}
}

// claim records that kind+name is declared at pos, reporting an earlier declaration.
func (b *builder) claim(kind, name string, pos token.Pos, fix string) bool {
	key := kind + " " + name
	if old, ok := b.declPos[key]; ok {
		first, second := old, pos
		if b.byPosition(second, first) < 0 {
			first, second = second, first
		}
		b.errorf(second, RuleDuplicate, "%s %q is already declared at %s: %s", kind, name, b.position(first), fix)
		return false
	}
	b.declPos[key] = pos
	return true
}

// doc returns the doc comment of the object declared at pos.
func (b *builder) doc(pos token.Pos) docEntry { return b.docs[pos] }

// requireDoc reports a missing doc comment.
func (b *builder) requireDoc(d docEntry, pos token.Pos, what, why string) {
	if d.text == "" {
		b.errorf(pos, RuleDoc, "%s has no doc comment: add a // comment directly above it (%s)", what, why)
	}
}

// position formats pos for messages: a module-relative "path:line:col".
func (b *builder) position(pos token.Pos) string {
	p := b.fset.Position(pos)
	return fmt.Sprintf("%s:%d:%d", b.modPath(p.Filename), p.Line, p.Column)
}

// source returns the module-relative "path:line" of pos.
func (b *builder) source(pos token.Pos) string {
	p := b.fset.Position(pos)
	if !p.IsValid() {
		return ""
	}
	return b.modPath(p.Filename) + ":" + strconv.Itoa(p.Line)
}

// modPath returns file's path relative to the root of its module (the nearest directory
// with a go.mod), with forward slashes, so it is the same on every machine.
func (b *builder) modPath(file string) string {
	dir := filepath.Dir(file)
	root, ok := b.modRoot[dir]
	if !ok {
		root = dir
		for {
			if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(root)
			if parent == root {
				root = dir
				break
			}
			root = parent
		}
		b.modRoot[dir] = root
	}
	rel, err := filepath.Rel(root, file)
	if err != nil {
		return filepath.Base(file)
	}
	return filepath.ToSlash(rel)
}

// startRefs begins collecting the types a signature references; endRefs returns them.
func (b *builder) startRefs() { b.refs = map[string]bool{} }

func (b *builder) endRefs() []string {
	out := make([]string, 0, len(b.refs))
	for name := range b.refs {
		out = append(out, name)
	}
	slices.Sort(out)
	b.refs = nil
	if len(out) == 0 {
		return nil
	}
	return out
}

// varRef names a declaration's variable.
func varRef(obj *types.Var) catalog.Ref {
	return catalog.Ref{Pkg: obj.Pkg().Path(), Name: obj.Name()}
}

// byPosition orders objects by file, line and column: declaration order that does not
// depend on the order in which files were parsed.
func (b *builder) byPosition(x, y token.Pos) int {
	px, py := b.fset.Position(x), b.fset.Position(y)
	return cmp.Or(strings.Compare(px.Filename, py.Filename), cmp.Compare(px.Line, py.Line), cmp.Compare(px.Column, py.Column))
}

// posOr returns p, or def when p is unknown (an object read from export data).
func posOr(p, def token.Pos) token.Pos {
	if p.IsValid() {
		return p
	}
	return def
}

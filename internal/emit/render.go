package emit

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"golang.org/x/tools/imports"

	"github.com/cordiskit/cordiskit/catalog"
)

// A goFile describes the head of a generated Go file: its package, header comment and
// the package names registered with the jen.File that names its imports.
type goFile struct {
	pkg    string
	header string
	names  map[string]string // import path → package name (jen.File.ImportName)
}

// writeGo writes a Go file's declarations as text with write, naming its imports as
// it goes: the first reference to an import path gives the path its name (qualifier),
// first taking the paths of first, in order. Jennifer then renders the package clause
// and import block for the paths in that order (importHead) and confirms the names: a
// jen.File of the same code names them the same way. Where it does not — a standard
// library path whose package is not named by its last element, which jennifer knows and
// the qualifier does not guess — write runs a second time with jennifer's names. It
// returns the file's package clause and import block, and the declarations.
func writeGo(g *goFile, first []string, write func(q qualifier) ([]string, error)) (head []byte, decls []string, err error) {
	q := newQualifier(g.names, nil)
	for _, p := range first {
		q.name(p)
	}
	if decls, err = write(q); err != nil {
		return nil, nil, err
	}
	head, names, err := importHead(g, q.paths)
	if err != nil {
		return nil, nil, err
	}
	if !maps.Equal(names, q.names) {
		decls, err = write(newQualifier(g.names, names))
	}
	return head, decls, err
}

// importHead renders, through jennifer, the package clause and import block of g's file
// for code that names the packages at paths in that order, and the names jennifer gives
// them (import path → package name): code written as text gets the imports a jen.File
// of the same code would have.
func importHead(g *goFile, paths []string) (head []byte, names map[string]string, err error) {
	f := jen.NewFile(g.pkg)
	for _, p := range slices.Sorted(maps.Keys(g.names)) {
		f.ImportName(p, g.names[p])
	}
	f.HeaderComment(g.header)
	refs := make([]jen.Code, len(paths))
	for i, p := range paths {
		refs[i] = jen.Qual(p, "_")
	}
	// refSplit marks where each reference starts in the unformatted source jennifer
	// renders; it cannot occur in a reference.
	const refSplit = "//cordis:ref\n"
	if len(refs) > 0 {
		f.Add(jen.Custom(jen.Options{Open: refSplit, Separator: "\n" + refSplit}, refs...))
	}
	f.NoFormat = true
	var raw bytes.Buffer
	if err := f.Render(&raw); err != nil {
		return nil, nil, err
	}
	parts := bytes.Split(raw.Bytes(), []byte("\n"+refSplit))
	if len(parts) != len(paths)+1 {
		return nil, nil, fmt.Errorf("emit: %d import paths rendered as %d references", len(paths), len(parts)-1)
	}
	names = make(map[string]string, len(paths))
	for i, p := range paths {
		name, ok := bytes.CutSuffix(bytes.TrimSpace(parts[i+1]), []byte("._"))
		if !ok {
			return nil, nil, fmt.Errorf("emit: jennifer rendered a reference to %s as %q", p, parts[i+1])
		}
		names[p] = string(name)
	}
	// The import block grouped as goimports groups it: the standard library, then the rest.
	head, err = imports.Process("", parts[0], &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
	if err != nil {
		return nil, nil, fmt.Errorf("formatting the package clause and imports: %w", err)
	}
	return head, names, nil
}

// A qualifier writes the package-qualified parts of text written for a Go file, naming
// each import path the first time the text refers to it, by jennifer's rule for a
// jen.File: the name the file gives the path (goFile.names), else the path's last
// element lowered to letters and digits (no leading digit; "pkg" if nothing is left),
// numbered from 1 while it is a reserved word or an earlier path's name. Copies share
// their names.
type qualifier struct{ *importNames }

// importNames is a qualifier's state.
type importNames struct {
	given map[string]string // the names the file gives its imports
	names map[string]string // import path → name, for the paths named so far
	paths []string          // the paths named so far, in order
	taken map[string]bool   // the names of names
}

// newQualifier returns a qualifier naming by given; one with fixed names uses those
// for the paths they hold instead.
func newQualifier(given, fixed map[string]string) qualifier {
	n := &importNames{given: given, names: map[string]string{}, taken: map[string]bool{}}
	for p, name := range fixed {
		n.names[p], n.taken[name] = name, true
	}
	return qualifier{n}
}

// name returns path's name, naming it if the text has not referred to it before.
func (n *importNames) name(path string) string {
	if name, ok := n.names[path]; ok {
		return name
	}
	base := n.given[path]
	if base == "" {
		base = guessName(path)
	}
	name := base
	for i := 1; jen.IsReservedWord(name) || n.taken[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	n.names[path], n.taken[name] = name, true
	n.paths = append(n.paths, path)
	return name
}

// guessName is the name jennifer guesses for an import path it has no name for.
func guessName(path string) string {
	path = strings.TrimSuffix(path, "/")
	path = strings.ToLower(path[strings.LastIndex(path, "/")+1:])
	path = strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			return r
		}
		return -1
	}, path)
	path = strings.TrimLeft(path, "0123456789")
	if path == "" {
		return "pkg"
	}
	return path
}

// q writes the qualified identifier path.name.
func (q qualifier) q(path, name string) string { return q.name(path) + "." + name }

// goType writes the Go type t.
func (q qualifier) goType(t *catalog.GoType) string {
	switch t.Kind {
	case catalog.KindBasic:
		return t.Name
	case catalog.KindNamed:
		return q.q(t.Pkg, t.Name)
	case catalog.KindPointer:
		return "*" + q.goType(t.Elem)
	case catalog.KindSlice:
		return "[]" + q.goType(t.Elem)
	case catalog.KindArray:
		return "[" + strconv.FormatInt(t.Len, 10) + "]" + q.goType(t.Elem)
	case catalog.KindMap:
		return "map[" + q.goType(t.Key) + "]" + q.goType(t.Elem)
	case catalog.KindFunc:
		params := make([]string, len(t.Params))
		for i, p := range t.Params {
			params[i] = q.goType(p)
			if t.Variadic && i == len(t.Params)-1 {
				params[i] = "..." + q.goType(p.Elem)
			}
		}
		results := make([]string, len(t.Results))
		for i, r := range t.Results {
			results[i] = q.goType(r)
		}
		return signature("", params, results)
	case catalog.KindAny:
		return "any"
	case catalog.KindStruct:
		return "struct{}"
	}
	panic("emit: unknown GoType kind " + string(t.Kind))
}

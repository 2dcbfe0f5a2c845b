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

// writeGo writes a Go file's declarations as text with write, twice: first with each
// package reference marked, which gives the order the file refers to its imports in
// (after first, the paths it refers to before anything write writes); jennifer then
// names them as it would name them in a jen.File of the same code (importHead); and
// the second pass writes the names. It returns the file's package clause and import
// block, and the declarations.
func writeGo(g *goFile, first []string, write func(q qualifier) ([]string, error)) (head []byte, decls []string, err error) {
	marked, err := write(nil)
	if err != nil {
		return nil, nil, err
	}
	paths := slices.Clone(first)
	for _, p := range markedPaths(marked) {
		if !slices.Contains(first, p) {
			paths = append(paths, p)
		}
	}
	head, names, err := importHead(g, paths)
	if err != nil {
		return nil, nil, err
	}
	decls, err = write(names)
	return head, decls, err
}

// importHead renders, through jennifer, the package clause and import block of g's file
// for code that names the packages at paths in that order, and the names jennifer gives
// them: code written as text gets the imports a jen.File of the same code would have.
func importHead(g *goFile, paths []string) (head []byte, names qualifier, err error) {
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
	names = make(qualifier, len(paths))
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

// A qualifier writes the package-qualified parts of text written for a Go file: with
// the names importHead gave the imports (import path → package name), or, when nil,
// with each import path marked (see markedPaths).
type qualifier map[string]string

// Marks around an import path in the first pass's text: neither occurs in Go source.
const pathOpen, pathClose = "\x02", "\x03"

// q writes the qualified identifier path.name.
func (q qualifier) q(path, name string) string {
	if q == nil {
		return pathOpen + path + pathClose + "." + name
	}
	return q[path] + "." + name
}

// markedPaths returns the import paths marked in decls, in order of first occurrence.
func markedPaths(decls []string) []string {
	var paths []string
	seen := map[string]bool{}
	for _, d := range decls {
		for {
			_, rest, ok := strings.Cut(d, pathOpen)
			if !ok {
				break
			}
			path, after, _ := strings.Cut(rest, pathClose)
			if !seen[path] {
				seen[path] = true
				paths = append(paths, path)
			}
			d = after
		}
	}
	return paths
}

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

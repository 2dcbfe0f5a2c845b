package emit

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dave/jennifer/jen"
)

// A goFile describes a Go file for renderFile: its package, header comment, the package
// names registered with its jen.File, and its top-level declarations in order.
type goFile struct {
	pkg    string
	header string
	names  map[string]string // import path → package name (jen.File.ImportName)
	decls  []jen.Code
}

// newFile returns an empty jen.File of the package with g's package names registered.
func (g *goFile) newFile() *jen.File {
	f := jen.NewFile(g.pkg)
	for _, p := range slices.Sorted(maps.Keys(g.names)) {
		f.ImportName(p, g.names[p])
	}
	return f
}

// declSplit marks, in the unformatted source jennifer renders, where each declaration
// starts; it cannot occur in generated code, where // starts a comment line only after
// a blank ("// text").
const declSplit = "//cordis:decl\n"

// renderFile renders g to the bytes one jen.File holding the header and the declarations
// (separated by blank lines) renders to, but without jennifer's gofmt pass over the whole
// file, which is most of the cost of a large file. jennifer renders the file once,
// unformatted (so it names every import as for the whole file), with a line marking
// the start of each declaration; go/format formats the head (the package clause and the
// import block); and each declaration is parsed on its own and laid out by formatDecl as
// gofmt would lay it out, or formatted by go/format when formatDecl does not know a
// construct in it. gofmt formats each top-level declaration on its own, so the result is
// what formatting the whole gives. The declarations are parsed and laid out in parallel.
func renderFile(g *goFile) ([]byte, error) {
	f := g.newFile()
	f.HeaderComment(g.header)
	if renderWhole {
		f.Add(jen.Custom(jen.Options{Separator: "\n\n"}, g.decls...))
		var b bytes.Buffer
		err := f.Render(&b)
		return b.Bytes(), err
	}
	if len(g.decls) > 0 {
		f.Add(jen.Custom(jen.Options{Open: declSplit, Separator: "\n" + declSplit}, g.decls...))
	}
	f.NoFormat = true
	var raw bytes.Buffer
	if err := f.Render(&raw); err != nil {
		return nil, err
	}
	parts := bytes.Split(raw.Bytes(), []byte("\n"+declSplit))
	if len(parts) != len(g.decls)+1 {
		return nil, fmt.Errorf("emit: %d declarations rendered as %d; the declaration marker %q occurs in the code", len(g.decls), len(parts)-1, declSplit)
	}
	head, err := format.Source(parts[0])
	if err != nil {
		return nil, fmt.Errorf("formatting the package clause and imports: %w", err)
	}

	decls := parts[1:]
	out := make([][]byte, len(decls))
	errs := make([]error, len(decls))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 8, len(decls)) {
		wg.Go(func() {
			p := new(declPrinter)
			for i := int(next.Add(1) - 1); i < len(decls); i = int(next.Add(1) - 1) {
				out[i], errs[i] = formatDeclSource(p, decls[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	head = bytes.TrimRight(head, "\n")
	size := len(head) + 1
	for _, o := range out {
		size += len(o) + 2
	}
	res := append(append(make([]byte, 0, size), head...), '\n')
	for _, o := range out {
		res = append(append(append(res, '\n'), o...), '\n')
	}
	return res, nil
}

// renderWhole, which only tests set, makes renderFile render what it reproduces: the
// file through jennifer's gofmt pass over all of it.
var renderWhole bool

// declPkg is the package clause a declaration is parsed and formatted under.
const declPkg = "package p\n\n"

// formatDeclSource formats the source of one top-level declaration as gofmt would,
// with p's buffers.
func formatDeclSource(p *declPrinter, decl []byte) ([]byte, error) {
	src := append([]byte(declPkg), decl...)
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("jennifer rendered a declaration that does not parse: %w\n%s", err, decl)
	}
	if len(file.Decls) == 1 && commentsAreDoc(file) {
		if out, ok := p.format(fset.File(file.Pos()), file.Decls[0]); ok {
			return bytes.Clone(out), nil
		}
	}
	aloneFormats.Add(1)
	out, err := format.Source(src)
	if err != nil {
		return nil, err
	}
	out, ok := bytes.CutPrefix(out, []byte(declPkg))
	if !ok {
		return nil, errors.New("emit: go/format moved a declaration's package clause")
	}
	return bytes.TrimRight(out, "\n"), nil
}

// commentsAreDoc reports whether the only comment in a file of one declaration is the
// declaration's doc comment.
func commentsAreDoc(file *ast.File) bool {
	var doc *ast.CommentGroup
	switch d := file.Decls[0].(type) {
	case *ast.FuncDecl:
		doc = d.Doc
	case *ast.GenDecl:
		doc = d.Doc
	}
	switch len(file.Comments) {
	case 0:
		return true
	case 1:
		return file.Comments[0] == doc
	}
	return false
}

// aloneFormats counts the declarations formatDecl gave up on, for the tests.
var aloneFormats atomic.Int64

// importHead renders, through jennifer, the package clause and import block of g's file
// for code that names the packages at paths in that order, and the names jennifer gives
// them: code written as text gets the imports a jen.File of the same code would have.
// g's declarations are ignored.
func importHead(g *goFile, paths []string) (head []byte, names map[string]string, err error) {
	f := g.newFile()
	f.HeaderComment(g.header)
	refs := make([]jen.Code, len(paths))
	for i, p := range paths {
		refs[i] = jen.Qual(p, "_")
	}
	if len(refs) > 0 {
		f.Add(jen.Custom(jen.Options{Open: declSplit, Separator: "\n" + declSplit}, refs...))
	}
	f.NoFormat = true
	var raw bytes.Buffer
	if err := f.Render(&raw); err != nil {
		return nil, nil, err
	}
	parts := bytes.Split(raw.Bytes(), []byte("\n"+declSplit))
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
	head, err = format.Source(parts[0])
	if err != nil {
		return nil, nil, fmt.Errorf("formatting the package clause and imports: %w", err)
	}
	return head, names, nil
}

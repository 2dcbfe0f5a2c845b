package emit

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/dave/jennifer/jen"
)

// A goFile describes a Go file for renderFile: its package, header comment, the package
// names registered with every jen.File that renders part of it, and its top-level
// declarations in order.
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

// renderFile renders g to the bytes one jen.File holding the header and the declarations
// (separated by blank lines) renders to, but without its single gofmt pass over the
// whole file, which is most of the cost of a large file: the declarations render in
// parallel chunks, each through its own jen.File and gofmt (gofmt formats each top-level
// declaration on its own, so the formatted chunks, joined, are what formatting the whole
// gives), and the header and import block once.
//
// The import block and the package names in the code must be those of a whole-file
// render. jennifer names an import when a file first uses it: its registered or
// standard-library name, else a name guessed from the path, made unique with a number
// when taken. Each chunk's file starts afresh, so the chunks agree with the whole file
// exactly when every path gets, in every chunk, the name it gets alone in an empty file,
// and no two paths share that name — then the order of first use, which differs, decides
// nothing. When that does not hold (two imported packages with the same name), the file
// is rendered whole, as before.
func renderFile(g *goFile) ([]byte, error) {
	decls := g.decls
	workers := min(runtime.GOMAXPROCS(0), 8)
	size := max(8, (len(decls)+4*workers-1)/(4*workers)) // about 4 chunks per worker
	nchunks := (len(decls) + size - 1) / size
	out := make([][]byte, nchunks)
	imports := make([]map[string]importDef, nchunks)
	errs := make([]error, nchunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, nchunks) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= nchunks {
					return
				}
				chunk := decls[i*size : min((i+1)*size, len(decls))]
				f := g.newFile()
				var b bytes.Buffer
				if errs[i] = jen.Custom(jen.Options{Separator: "\n\n"}, chunk...).RenderWithFile(&b, f); errs[i] != nil {
					continue
				}
				out[i] = bytes.TrimSpace(b.Bytes())
				imports[i], errs[i] = importsOf(f)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	// The name each path gets alone, and the file's header and imports with every path
	// registered; a path whose name differs anywhere falls back to a whole render.
	head := g.newFile()
	alone := map[string]importDef{}
	for _, m := range imports {
		for p, def := range m {
			d, ok := alone[p]
			if !ok {
				f := g.newFile()
				if err := jen.Qual(p, "X").RenderWithFile(io.Discard, f); err != nil {
					return nil, err
				}
				fm, err := importsOf(f)
				if err != nil {
					return nil, err
				}
				d = fm[p]
				alone[p] = d
			}
			if d != def {
				return renderWhole(g)
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(alone)) {
		if err := jen.Qual(p, "X").RenderWithFile(io.Discard, head); err != nil {
			return nil, err
		}
	}
	if hm, err := importsOf(head); err != nil {
		return nil, err
	} else if len(hm) != len(alone) {
		return nil, errors.New("emit: import paths went missing")
	} else {
		for p, d := range hm {
			if alone[p] != d {
				return renderWhole(g) // two paths want one name
			}
		}
	}
	head.HeaderComment(g.header)
	var b bytes.Buffer
	if err := head.Render(&b); err != nil {
		return nil, err
	}
	res := append(bytes.TrimRight(b.Bytes(), "\n"), '\n')
	for _, o := range out {
		if len(o) > 0 {
			res = append(append(append(res, '\n'), o...), '\n')
		}
	}
	return res, nil
}

// wholeRenders counts renderWhole's calls, for the tests.
var wholeRenders atomic.Int64

// renderWhole renders g through one jen.File: the reference renderFile reproduces.
func renderWhole(g *goFile) ([]byte, error) {
	wholeRenders.Add(1)
	f := g.newFile()
	f.HeaderComment(g.header)
	for i, d := range g.decls {
		if i > 0 {
			f.Line()
		}
		f.Add(d)
	}
	var b bytes.Buffer
	if err := f.Render(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// An importDef is how a file imports a path: with an alias (name set) or without.
type importDef struct {
	alias bool
	name  string
}

// importsOf returns the imports jennifer has registered in f, as its import block lists
// them: f must hold no code of its own (its body renders empty).
func importsOf(f *jen.File) (map[string]importDef, error) {
	f.NoFormat = true
	defer func() { f.NoFormat = false }()
	var b bytes.Buffer
	if err := f.Render(&b); err != nil {
		return nil, err
	}
	m := map[string]importDef{}
	_, block, _ := bytes.Cut(b.Bytes(), []byte("\nimport "))
	block, multi := bytes.CutPrefix(block, []byte("(\n"))
	for line := range bytes.Lines(block) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == ')' {
			break
		}
		var def importDef
		if line[0] != '"' {
			name, rest, _ := bytes.Cut(line, []byte(" "))
			def = importDef{alias: true, name: string(name)}
			line = rest
		}
		p, err := strconv.Unquote(string(line))
		if err != nil {
			return nil, errors.New("emit: unreadable import line " + strconv.Quote(string(line)))
		}
		m[p] = def
		if !multi {
			break
		}
	}
	return m, nil
}

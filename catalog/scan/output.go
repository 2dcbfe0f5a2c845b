package scan

import (
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// An output is the package the run generates into, and what of it does not exist yet.
//
// Code that wires the generated API into a runtime (toolset.Options{Catalog:
// cordisapi.Catalog, Facade: cordisapi.Facade}) is written before the first run, so the
// first load sees it refer to variables — or a whole package — the run is about to
// create. Those errors, and only those, are not build errors: the generated files define
// what they miss. They are found by what the type checker reported at a position (the
// import of the output package, a selector into it, an undefined name inside it), never
// by message text alone, so every other error of the same packages is reported as before.
type output struct {
	dir     string          // the output directory, absolute
	pkgPath string          // its import path; "" when it is outside the main module
	missing map[string]bool // the generated variables whose file does not exist yet
	noGo    bool            // the directory has no Go file: the package does not exist yet
	root    bool            // the patterns matched the output package, so its own errors are reported
}

// newOutput describes the output directory dir, whose generated Go files are files.
func newOutput(dir string, files []string, pkgs []*packages.Package) *output {
	o := &output{dir: dir, missing: map[string]bool{}, noGo: true}
	for _, file := range files {
		if v, known := generatedVars[file]; known {
			if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
				o.missing[v.name] = true
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			o.noGo = false
		}
	}
	for _, p := range pkgs {
		if packageDir(p) == dir {
			o.pkgPath, o.root = p.PkgPath, true
		}
	}
	if o.pkgPath == "" {
		o.pkgPath = modulePath(dir, pkgs)
	}
	return o
}

// modulePath returns the import path dir has in the main module of pkgs, or "".
func modulePath(dir string, pkgs []*packages.Package) string {
	for _, p := range pkgs {
		if m := p.Module; m != nil && m.Main {
			rel, err := filepath.Rel(m.Dir, dir)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return ""
			}
			return path.Join(m.Path, filepath.ToSlash(rel))
		}
	}
	return ""
}

// dropPending removes from p.Errors those that only say the output does not exist yet,
// and then the go command's unpositioned summary of the same compile errors: the type
// checker's positioned errors remain for any other problem.
func (o *output) dropPending(p *packages.Package) {
	n := len(p.Errors)
	p.Errors = slices.DeleteFunc(p.Errors, func(e packages.Error) bool { return o.pending(p, e) })
	if len(p.Errors) < n {
		p.Errors = slices.DeleteFunc(p.Errors, func(e packages.Error) bool { return loadDiag(e).Line == 0 })
	}
}

// pending reports whether e, an error of package p, is about a part of the output that
// this run creates: the import of an output package that has no Go file yet, or a use of
// a generated variable (Catalog, Facade) whose file is missing — as pkg.Catalog from
// another package, or as Catalog inside the output package.
func (o *output) pending(p *packages.Package, e packages.Error) bool {
	if e.Kind != packages.TypeError || o.pkgPath == "" || len(o.missing) == 0 {
		return false
	}
	f, pos := errorPos(p, e)
	if f == nil {
		return false
	}
	inOutput := packageDir(p) == o.dir
	found := false
	sels := map[*ast.Ident]bool{} // the Sel of a selector is not a name of its own
	ast.Inspect(f, func(n ast.Node) bool {
		if found || n == nil || pos < n.Pos() || pos >= n.End() {
			return false // only the nodes around the error
		}
		if s, ok := n.(*ast.SelectorExpr); ok {
			sels[s.Sel] = true
		}
		switch n := n.(type) {
		case *ast.ImportSpec:
			// Before the first run the package may not exist at all; when it has hand-written
			// files and the patterns match it, its own errors are reported from it.
			found = importPath(n) == o.pkgPath && (o.noGo || o.root)
		case *ast.SelectorExpr:
			found = o.missing[n.Sel.Name] && o.isOutputPkg(p.TypesInfo, n.X)
		case *ast.Ident:
			found = inOutput && !sels[n] && o.missing[n.Name] && p.TypesInfo.Uses[n] == nil
		}
		return !found
	})
	return found
}

// isOutputPkg reports whether x names the imported output package.
func (o *output) isOutputPkg(info *types.Info, x ast.Expr) bool {
	id, ok := unparen(x).(*ast.Ident)
	if !ok || info == nil {
		return false
	}
	pn, ok := info.Uses[id].(*types.PkgName)
	return ok && pn.Imported().Path() == o.pkgPath
}

// importer returns the import of the output package by one of p's files, or nil.
func (o *output) importer(p *packages.Package) *ast.ImportSpec {
	for _, f := range p.Syntax {
		for _, spec := range f.Imports {
			if o.pkgPath != "" && importPath(spec) == o.pkgPath {
				return spec
			}
		}
	}
	return nil
}

func importPath(spec *ast.ImportSpec) string {
	s, _ := strconv.Unquote(spec.Path.Value)
	return s
}

// errorPos returns the file of p an error is positioned in and its position there.
func errorPos(p *packages.Package, e packages.Error) (*ast.File, token.Pos) {
	d := loadDiag(e)
	if d.Line == 0 || p.Fset == nil {
		return nil, token.NoPos
	}
	for _, f := range p.Syntax {
		tf := p.Fset.File(f.Pos())
		if tf == nil || tf.Name() != d.Path || d.Line > tf.LineCount() {
			continue
		}
		pos := tf.LineStart(d.Line)
		if d.Col > 1 {
			pos += token.Pos(d.Col - 1)
		}
		return f, pos
	}
	return nil, token.NoPos
}

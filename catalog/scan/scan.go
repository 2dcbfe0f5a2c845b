package scan

import (
	"cmp"
	"context"
	"fmt"
	"go/ast"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/cordiskit/cordiskit/catalog"
)

// KitPath is the import path of the kit whose constructors declare events, services and
// tools.
const KitPath = "github.com/cordiskit/cordiskit/kit"

// Mode is the packages.LoadMode of the one load a scan makes. It has no NeedDeps:
// dependencies come from export data, only the matched packages (and the kit) are parsed
// and type-checked from source.
const Mode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
	packages.NeedTypes | packages.NeedTypesInfo | packages.NeedModule

// Config says what to scan. The zero value scans the package in the current directory.
type Config struct {
	// Dir is the directory the go command runs in; relative patterns are relative to it.
	// Empty means the current directory.
	Dir string
	// Patterns are go package patterns ("./...", "../kit", "example.com/rt/api").
	// None means ".".
	Patterns []string
	// Env is the go command's environment; nil means the current process's.
	Env []string
	// Out is the directory the generator writes its Go files into (relative to Dir), or
	// "" for none. Scanned code may refer to what the run is about to write: a use of
	// Catalog or Facade before the generated file declaring it (one of OutFiles) exists —
	// out.Catalog in the wiring, or Catalog in hand-written code next to the generated
	// files — and an import of the output package before it has any Go file are not
	// errors. Any other error of the same packages still is. The package there must
	// declare no event, service or tool, and a package that does must not import it: the
	// generated code imports what it catalogs, so either would be an import cycle.
	Out string
	// OutFiles are the generated Go files expected in Out: catalog_gen.go, facade_gen.go.
	OutFiles []string
}

// A Result is what a scan found.
type Result struct {
	// Catalog holds the declarations of the packages the patterns matched.
	Catalog *catalog.Catalog
	// Inherited holds the kit's own declarations (its core tier: the tools and timer
	// services and their events) when the patterns did not match the kit itself, so that
	// a runtime's docs can list what every plugin inherits. It is nil otherwise.
	Inherited *catalog.Catalog
}

// Load scans the packages cfg names and builds their catalog. Problems in the source —
// build errors and violations of the completeness rules — are returned together as
// [Diagnostics]; any other error means the go command itself failed.
func Load(ctx context.Context, cfg *Config) (*Result, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	dir, err := filepath.Abs(cmp.Or(cfg.Dir, "."))
	if err != nil {
		return nil, err
	}
	patterns := cfg.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	outDir := ""
	if cfg.Out != "" {
		outDir = filepath.Join(dir, cfg.Out)
	}
	pv := &previous{}
	pcfg := &packages.Config{Context: ctx, Mode: Mode, Dir: dir, Env: cfg.Env, ParseFile: pv.parseFile}
	// The kit is loaded too (one load, not two): its doc comments document the kit types
	// a runtime's signatures use, and its declarations are the inherited tier.
	pkgs, err := packages.Load(pcfg, append(patterns[:len(patterns):len(patterns)], KitPath)...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}

	var diags Diagnostics
	var roots []*packages.Package
	var kit *packages.Package
	var out *output
	if outDir != "" {
		out = newOutput(outDir, cfg.OutFiles, pkgs)
	}
	for _, p := range pkgs {
		if p.PkgPath == KitPath && !matchesAny(patterns, dir, p) {
			kit = p // errors of an unmatched kit show up in its importers anyway
			continue
		}
		roots = append(roots, p)
		pv.dropErrors(dir, p)
		if out != nil {
			out.dropPending(p)
		}
		diags = append(diags, loadDiags(p)...)
	}
	if len(roots) == 0 {
		return nil, fmt.Errorf("no Go packages match %s in %s", strings.Join(patterns, " "), dir)
	}
	if err := diags.Err(); err != nil {
		return nil, err
	}

	ix := docIndex{}
	for _, p := range append(roots, kit) {
		if p == nil || len(p.Errors) > 0 {
			continue
		}
		for _, f := range p.Syntax {
			ix.add(f)
		}
	}
	sourcePkgs := map[string]bool{}
	for _, p := range roots {
		sourcePkgs[p.PkgPath] = true
	}
	if kit != nil && len(kit.Errors) == 0 {
		sourcePkgs[kit.PkgPath] = true
	}

	res := &Result{}
	b := newBuilder(pkgs[0].Fset, ix, sourcePkgs, &diags)
	for _, p := range roots {
		if outDir != "" && packageDir(p) == outDir {
			for _, d := range b.findDecls(p) {
				what := [...]string{"event", "service", "tool"}[d.kind]
				b.errorf(d.obj.Pos(), RuleOutput, "%s %q is declared in package %s, the -out directory of this run: the generated code there imports every package it catalogs, so it would import itself; move the declaration to another package or choose another -out", what, d.name, p.PkgPath)
			}
			continue
		}
		if b.addDecls(p) > 0 && out != nil {
			if spec := out.importer(p); spec != nil {
				b.errorf(spec.Pos(), RuleOutput, "package %s declares events, services or tools and imports %s, the -out package of this run: the generated code there imports %s to check and bind its declarations, so that is an import cycle; move the code that uses %s (such as the toolset wiring) into a package that declares nothing, for example your main package", p.PkgPath, out.pkgPath, p.PkgPath, out.pkgPath)
			}
		}
	}
	res.Catalog = b.finish()
	if kit != nil && len(kit.Errors) == 0 {
		ib := newBuilder(kit.Fset, ix, sourcePkgs, nil) // the kit's problems are not the user's
		ib.addDecls(kit)
		res.Inherited = ib.finish()
	}
	if err := diags.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// loadDiags reports a package's errors. When some have a position, those without one
// (the go command's summary of the same compile errors) are dropped.
func loadDiags(p *packages.Package) []Diagnostic {
	var out, unpositioned []Diagnostic
	for _, e := range p.Errors {
		d := loadDiag(e)
		if d.Line == 0 {
			d.Path = p.PkgPath
			unpositioned = append(unpositioned, d)
		} else {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return unpositioned
	}
	return out
}

// loadDiag turns a packages.Error ("file:line:col: msg") into a Diagnostic.
func loadDiag(e packages.Error) Diagnostic {
	d := Diagnostic{Path: e.Pos, Rule: RuleLoad, Message: e.Msg + " (fix the build first: go build shows the same error)"}
	// Pos is "file:line:col", "file:line" or "-"/"" when unknown.
	parts := strings.Split(e.Pos, ":")
	nums := 0
	for i := len(parts) - 1; i >= 1 && nums < 2; i-- {
		if _, err := strconv.Atoi(parts[i]); err != nil {
			break
		}
		nums++
	}
	if nums > 0 {
		d.Path = strings.Join(parts[:len(parts)-nums], ":")
		d.Line, _ = strconv.Atoi(parts[len(parts)-nums])
		if nums == 2 {
			d.Col, _ = strconv.Atoi(parts[len(parts)-1])
		}
	}
	if d.Path == "" || d.Path == "-" {
		d.Path = e.Pos
	}
	return d
}

// matchesAny reports whether a package matches one of the go patterns, as the go
// command would have matched it (relative patterns against its directory, others against
// its import path, "..." as a wildcard).
func matchesAny(patterns []string, dir string, p *packages.Package) bool {
	pkgDir := packageDir(p)
	for _, pat := range patterns {
		if pat == "all" {
			return true
		}
		if build := strings.HasPrefix(pat, ".") || filepath.IsAbs(pat); build {
			if pkgDir != "" && wildcard(filepath.ToSlash(filepath.Join(dir, pat))).MatchString(filepath.ToSlash(pkgDir)) {
				return true
			}
			continue
		}
		if wildcard(pat).MatchString(p.PkgPath) {
			return true
		}
	}
	return false
}

func packageDir(p *packages.Package) string {
	for _, files := range [][]string{p.GoFiles, p.CompiledGoFiles} {
		if len(files) > 0 {
			return filepath.Dir(files[0])
		}
	}
	return ""
}

// wildcard compiles a go pattern: "x/..." matches x and everything below it.
func wildcard(pat string) *regexp.Regexp {
	re := regexp.QuoteMeta(pat)
	re = strings.ReplaceAll(re, `/\.\.\.`, `(/.*)?`)
	re = strings.ReplaceAll(re, `\.\.\.`, `.*`)
	return regexp.MustCompile(`^` + re + `$`)
}

// unparen strips parentheses around an expression.
func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

package emit

import (
	"go/ast"
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestGeneratedFacadeCallsOnlyBind: the façade files generated in this module name goja's
// types (goja.Value, *goja.Object) and call nothing of goja — no function of the package,
// no method or field of a goja value, a *goja.Runtime above all. Every value they build or
// read goes through sandbox/bind, which reaches the runtime of a realm whose lock the
// binding holds; package sandbox hands out no runtime but through Realm.Do, which takes
// the lock. A generator change that writes a goja call again fails here.
func TestGeneratedFacadeCallsOnlyBind(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the generated packages; skipped with -short")
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  "../..",
	}
	pkgs, err := packages.Load(cfg,
		"github.com/cordiskit/cordiskit/generated",
		"github.com/cordiskit/cordiskit/examples/harness/cordisapi",
		"github.com/cordiskit/cordiskit/internal/helpdesk/cordisapi")
	if err != nil {
		t.Fatal(err)
	}
	files, typeUses := 0, 0
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		for _, f := range p.Syntax {
			if filepath.Base(p.Fset.File(f.Pos()).Name()) != "facade_gen.go" {
				continue
			}
			files++
			ast.Inspect(f, func(n ast.Node) bool {
				x, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pos := p.Fset.Position(x.Pos())
				if sel := p.TypesInfo.Selections[x]; sel != nil {
					if fromGoja(sel.Obj()) {
						t.Errorf("%s: %s: a method or field of goja (%s); build and read values with sandbox/bind", pos, types.ExprString(x), sel.Obj())
					}
					return true
				}
				obj := p.TypesInfo.Uses[x.Sel]
				if !fromGoja(obj) {
					return true
				}
				if _, isType := obj.(*types.TypeName); !isType {
					t.Errorf("%s: %s: goja's %s is not a type; generated code may name goja's types only", pos, types.ExprString(x), obj)
					return true
				}
				typeUses++
				return true
			})
		}
	}
	if files != len(pkgs) || typeUses == 0 {
		t.Fatalf("checked %d façade files of %d packages, %d uses of goja's types: the check saw nothing to check", files, len(pkgs), typeUses)
	}
}

// fromGoja reports whether obj belongs to package goja (the runtime, not its ast or parser).
func fromGoja(obj types.Object) bool {
	return obj != nil && obj.Pkg() != nil && strings.TrimSuffix(obj.Pkg().Path(), "/") == GojaPath
}

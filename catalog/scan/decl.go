package scan

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/packages"

	"github.com/cordiskit/cordiskit/catalog"
)

// declKind says what a kit declaration declares.
type declKind int

const (
	declEvent declKind = iota
	declService
	declTool
)

// A kitType is what a kit declaration type declares.
type kitType struct {
	kind declKind
	mode catalog.Mode
}

// kitTypes maps the kit's declaration types to what they declare: an event type per row
// of catalog.Modes, and the service and tool declarations.
var kitTypes = func() map[string]kitType {
	m := map[string]kitType{"Service": {declService, ""}, "ToolDecl": {declTool, ""}}
	for _, s := range catalog.Modes {
		m[s.KitType] = kitType{declEvent, s.Mode}
	}
	return m
}()

// A decl is one package-level variable made with a kit constructor.
type decl struct {
	kind  declKind
	mode  catalog.Mode
	obj   *types.Var
	name  string       // the constant event name, service key or tool name
	targs []types.Type // the type arguments: P[, R], T, or In, Out
}

// classify reports whether t is the type of a kit declaration (*kit.Event[P], …). The
// check is on the variable's type, so aliases of the kit's types and wrappers of its
// constructors are recognised like the originals.
func classify(t types.Type) (kind declKind, mode catalog.Mode, targs []types.Type, ok bool) {
	p, isPtr := types.Unalias(t).(*types.Pointer)
	if !isPtr {
		return 0, "", nil, false
	}
	n, isNamed := types.Unalias(p.Elem()).(*types.Named)
	if !isNamed {
		return 0, "", nil, false
	}
	obj := n.Origin().Obj()
	if obj.Pkg() == nil || obj.Pkg().Path() != KitPath {
		return 0, "", nil, false
	}
	k, found := kitTypes[obj.Name()]
	if !found {
		return 0, "", nil, false
	}
	for i := range n.TypeArgs().Len() {
		targs = append(targs, n.TypeArgs().At(i))
	}
	return k.kind, k.mode, targs, true
}

// findDecls returns the kit declarations among p's package-level variables, reporting
// those whose name is not a constant.
func (b *builder) findDecls(p *packages.Package) []decl {
	var out []decl
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if dc, ok := b.declOf(p, vs, i, id); ok {
						out = append(out, dc)
					}
				}
			}
		}
	}
	return out
}

func (b *builder) declOf(p *packages.Package, vs *ast.ValueSpec, i int, id *ast.Ident) (decl, bool) {
	obj, _ := p.TypesInfo.Defs[id].(*types.Var)
	if obj == nil || id.Name == "_" {
		return decl{}, false
	}
	kind, mode, targs, ok := classify(obj.Type())
	if !ok || len(vs.Values) == 0 {
		return decl{}, false
	}
	what := [...]string{"event name", "service key", "tool name"}[kind]
	fix := fmt.Sprintf(`pass a string constant, e.g. var %s = kit.New…(%q)`, id.Name, "ns/name")
	if len(vs.Values) != len(vs.Names) {
		b.errorf(id.Pos(), RuleName, "the %s of %s must be a constant string, not the result of a multi-value call: %s", what, id.Name, fix)
		return decl{}, false
	}
	call, isCall := unparen(vs.Values[i]).(*ast.CallExpr)
	if !isCall {
		// var X = other.Y re-exports a declaration made elsewhere; it is not a new one.
		return decl{}, false
	}
	if len(call.Args) == 0 {
		b.errorf(call.Pos(), RuleName, "%s is made by a call without arguments, so its %s is not a constant: %s", id.Name, what, fix)
		return decl{}, false
	}
	tv := p.TypesInfo.Types[call.Args[0]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		b.errorf(call.Args[0].Pos(), RuleName, "the %s of %s is not a constant string expression, so the generator cannot know it: %s", what, id.Name, fix)
		return decl{}, false
	}
	name := constant.StringVal(tv.Value)
	if name == "" {
		b.errorf(call.Args[0].Pos(), RuleName, "the %s of %s is empty: %s", what, id.Name, fix)
		return decl{}, false
	}
	return decl{kind: kind, mode: mode, obj: obj, name: name, targs: targs}, true
}

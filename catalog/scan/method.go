package scan

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"github.com/cordiskit/cordiskit/catalog"
)

// method describes one JavaScript-facing method of service key (Go type typeName).
func (b *builder) method(key, typeName string, fn *types.Func) (m catalog.Method) {
	pos := fn.Pos()
	doc := b.doc(pos)
	what := fmt.Sprintf("method %s.%s of service %q", typeName, fn.Name(), key)
	b.requireDoc(doc, pos, what, "it is the method's documentation in the catalog; mark it //cordis:internal to keep it out of JavaScript")
	m = catalog.Method{
		Name: fn.Name(), JSName: lowerCamel(fn.Name()),
		Doc: doc.text, Summary: synopsis(doc.text), Source: b.source(pos),
	}
	b.startRefs()
	defer func() { m.Types = b.endRefs() }()

	sig := fn.Signature()
	if sig.Variadic() {
		b.errorf(pos, RuleUnsupported, "%s is variadic: take a slice instead", what)
	}
	var params []string
	for i := range sig.Params().Len() {
		p := sig.Params().At(i)
		par := catalog.Param{Name: p.Name()}
		switch {
		case isNamed(p.Type(), "context", "Context"):
			par.Go = &catalog.GoType{Kind: catalog.KindNamed, Pkg: "context", Name: "Context"}
			par.Role = catalog.RoleContext
			if i != 0 {
				b.errorf(posOr(p.Pos(), pos), RuleUnsupported, "%s takes a context.Context that is not its first parameter: move it first (it makes the method async)", what)
			}
			m.Async = i == 0
		case isKitContext(p.Type()):
			par.Go = &catalog.GoType{Kind: catalog.KindPointer, Elem: &catalog.GoType{Kind: catalog.KindNamed, Pkg: KitPath, Name: "Context"}}
			par.Role = catalog.RoleKit
		default:
			par.JSName = jsParamName(p.Name(), len(params))
			par.Go, par.JS, _ = b.convert(p.Type(), site{pos: posOr(p.Pos(), pos), what: fmt.Sprintf("parameter %s of %s", par.JSName, what), callback: true})
			params = append(params, par.JSName+": "+par.JS)
		}
		m.Params = append(m.Params, par)
	}
	m.Returns = b.returns(sig, &m, what, pos)
	async := ""
	if m.Async {
		async = "async "
		m.Returns = "Promise<" + m.Returns + ">"
	}
	m.Signature = async + m.JSName + "(" + strings.Join(params, ", ") + "): " + m.Returns
	return m
}

// returns records the Go results and derives the JavaScript return type: a trailing
// error throws (or rejects), a (T, bool) pair is T | undefined, func() is a disposer.
func (b *builder) returns(sig *types.Signature, m *catalog.Method, what string, pos token.Pos) string {
	var vals []catalog.Param
	n := sig.Results().Len()
	for i := range n {
		r := sig.Results().At(i)
		par := catalog.Param{Name: r.Name(), JSName: r.Name()}
		if i == n-1 && isError(r.Type()) {
			par.Go, par.JS = &catalog.GoType{Kind: catalog.KindBasic, Name: "error"}, "Error"
			m.Results = append(m.Results, par)
			break
		}
		par.Go, par.JS, _ = b.convert(r.Type(), site{pos: posOr(r.Pos(), pos), what: fmt.Sprintf("result %d of %s", i, what), disposer: true})
		m.Results = append(m.Results, par)
		vals = append(vals, par)
	}
	switch {
	case len(vals) == 0:
		return "void"
	case len(vals) == 1:
		return vals[0].JS
	case len(vals) == 2 && vals[1].Go != nil && vals[1].Go.Kind == catalog.KindBasic && vals[1].Go.Name == "bool":
		return vals[0].JS + " | undefined"
	}
	b.errorf(pos, RuleUnsupported, "%s returns %d values: return one value, optionally followed by a bool (found) and then an error", what, len(vals))
	return "unknown"
}

func isNamed(t types.Type, pkg, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

func isKitContext(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), KitPath, "Context")
}

func isError(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() == nil && n.Obj().Name() == "error"
}

package sandboxhost

import "github.com/dop251/goja/ast"

// declares reports whether fn's own scope declares name: a var anywhere in its body
// outside nested functions (the parser lists them), or a let, const, function or class
// among its top-level statements, as a plain name or inside a destructuring pattern.
func declares(fn *ast.FunctionLiteral, name string) bool {
	for _, d := range fn.DeclarationList {
		if bindsAny(d.List, name) {
			return true
		}
	}
	for _, st := range fn.Body.List {
		switch st := st.(type) {
		case *ast.LexicalDeclaration:
			if bindsAny(st.List, name) {
				return true
			}
		case *ast.FunctionDeclaration:
			if n := st.Function.Name; n != nil && n.Name.String() == name {
				return true
			}
		case *ast.ClassDeclaration:
			if n := st.Class.Name; n != nil && n.Name.String() == name {
				return true
			}
		}
	}
	return false
}

// bindsAny reports whether one of list's targets binds name.
func bindsAny(list []*ast.Binding, name string) bool {
	for _, b := range list {
		if binds(b.Target, name) {
			return true
		}
	}
	return false
}

// binds reports whether the binding target t (a name or a pattern, whose elements may
// carry defaults) binds name. Keys and defaults are not bindings: in {harness: h = harness}
// only h is.
func binds(t ast.Expression, name string) bool {
	switch t := t.(type) {
	case *ast.Identifier:
		return t.Name.String() == name
	case *ast.AssignExpression: // a pattern element with a default
		return binds(t.Left, name)
	case *ast.ArrayPattern:
		for _, e := range t.Elements {
			if binds(e, name) {
				return true
			}
		}
		return binds(t.Rest, name)
	case *ast.ObjectPattern:
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				if p.Name.Name.String() == name {
					return true
				}
			case *ast.PropertyKeyed:
				if binds(p.Value, name) {
					return true
				}
			}
		}
		return binds(t.Rest, name)
	}
	return false
}

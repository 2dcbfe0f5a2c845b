package scan

import (
	"go/ast"
	"go/token"
	"strings"
)

// internalDirective keeps a method or field out of the façade and the JS signatures.
const internalDirective = "//cordis:internal"

// A docEntry is the doc comment of one declared identifier.
type docEntry struct {
	text     string // the comment as text, directives removed
	internal bool   // the comment carries //cordis:internal
}

// docIndex maps the position of a declaring identifier (a type, var, const, struct field,
// interface method or method declaration) to its doc comment. Keying by position rather
// than by types.Object works for every object type-checked from source, whichever
// package imported it.
type docIndex map[token.Pos]docEntry

// add indexes every doc comment in f.
func (ix docIndex) add(f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			ix.addGen(d)
		case *ast.FuncDecl:
			ix.put(d.Name, d.Doc)
		}
	}
}

func (ix docIndex) addGen(d *ast.GenDecl) {
	for _, spec := range d.Specs {
		// An unparenthesized declaration's comment hangs on the GenDecl.
		var outer *ast.CommentGroup
		if !d.Lparen.IsValid() {
			outer = d.Doc
		}
		switch s := spec.(type) {
		case *ast.TypeSpec:
			ix.put(s.Name, first(s.Doc, outer, s.Comment))
			switch t := s.Type.(type) {
			case *ast.StructType:
				ix.addFields(t.Fields)
			case *ast.InterfaceType:
				ix.addFields(t.Methods)
			}
		case *ast.ValueSpec:
			for _, n := range s.Names {
				ix.put(n, first(s.Doc, outer, s.Comment))
			}
		}
	}
}

func (ix docIndex) addFields(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		cg := first(f.Doc, f.Comment)
		for _, n := range f.Names {
			ix.put(n, cg)
		}
		if st, ok := f.Type.(*ast.StructType); ok {
			ix.addFields(st.Fields) // fields of an anonymous struct field, for completeness
		}
	}
}

func (ix docIndex) put(id *ast.Ident, cg *ast.CommentGroup) {
	if id == nil || cg == nil {
		return
	}
	e := docEntry{text: strings.TrimSpace(cg.Text())}
	for _, c := range cg.List {
		if strings.TrimSpace(c.Text) == internalDirective {
			e.internal = true
		}
	}
	ix[id.Pos()] = e
}

func first(cgs ...*ast.CommentGroup) *ast.CommentGroup {
	for _, cg := range cgs {
		if cg != nil && len(cg.List) > 0 {
			return cg
		}
	}
	return nil
}

package catalog

import (
	"strconv"
	"strings"
)

// Kind is the kind of a [GoType].
type Kind string

// The Go type kinds a signature may use. Everything else (channels, non-empty interfaces
// other than error and context.Context, generic instantiations, anonymous structs other
// than struct{}) is rejected by the generator before it gets here.
const (
	KindBasic   Kind = "basic"   // a predeclared type: Name is "string", "int64", "error", …
	KindNamed   Kind = "named"   // a defined type: Pkg and Name
	KindPointer Kind = "pointer" // *Elem
	KindSlice   Kind = "slice"   // []Elem
	KindArray   Kind = "array"   // [Len]Elem
	KindMap     Kind = "map"     // map[Key]Elem
	KindFunc    Kind = "func"    // func(Params...) Results
	KindAny     Kind = "any"     // the empty interface
	KindStruct  Kind = "struct"  // struct{} (the only anonymous struct allowed)
)

// A GoType describes a Go type with full import paths: enough to name it in generated
// code.
type GoType struct {
	Kind     Kind
	Pkg      string    // import path of a named type
	Name     string    // name of a named or basic type
	Elem     *GoType   // pointer, slice, array and map element
	Key      *GoType   // map key
	Len      int64     // array length
	Params   []*GoType // func parameters
	Results  []*GoType // func results
	Variadic bool      // the last func parameter is ...T (Params holds []T)
}

// String returns the type in Go syntax, qualifying named types with their full import
// path: "[]*github.com/cordiskit/cordiskit/kit.ToolSchema".
func (t *GoType) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *GoType) write(b *strings.Builder) {
	if t == nil {
		b.WriteString("<nil>")
		return
	}
	switch t.Kind {
	case KindBasic:
		b.WriteString(t.Name)
	case KindNamed:
		if t.Pkg != "" {
			b.WriteString(t.Pkg)
			b.WriteByte('.')
		}
		b.WriteString(t.Name)
	case KindPointer:
		b.WriteByte('*')
		t.Elem.write(b)
	case KindSlice:
		b.WriteString("[]")
		t.Elem.write(b)
	case KindArray:
		b.WriteString("[" + strconv.FormatInt(t.Len, 10) + "]")
		t.Elem.write(b)
	case KindMap:
		b.WriteString("map[")
		t.Key.write(b)
		b.WriteByte(']')
		t.Elem.write(b)
	case KindFunc:
		b.WriteString("func(")
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			if t.Variadic && i == len(t.Params)-1 && p.Kind == KindSlice {
				b.WriteString("...")
				p.Elem.write(b)
				continue
			}
			p.write(b)
		}
		b.WriteByte(')')
		switch len(t.Results) {
		case 0:
		case 1:
			b.WriteByte(' ')
			t.Results[0].write(b)
		default:
			b.WriteString(" (")
			for i, r := range t.Results {
				if i > 0 {
					b.WriteString(", ")
				}
				r.write(b)
			}
			b.WriteByte(')')
		}
	case KindAny:
		b.WriteString("any")
	case KindStruct:
		b.WriteString("struct{}")
	default:
		b.WriteString(string(t.Kind))
	}
}

// Is reports whether t is the named type pkg.name.
func (t *GoType) Is(pkg, name string) bool {
	return t != nil && t.Kind == KindNamed && t.Pkg == pkg && t.Name == name
}

// Named returns the named type t refers to, looking through pointers, or nil.
func (t *GoType) Named() *GoType {
	for t != nil && t.Kind == KindPointer {
		t = t.Elem
	}
	if t != nil && t.Kind == KindNamed {
		return t
	}
	return nil
}

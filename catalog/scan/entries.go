package scan

import (
	"fmt"
	"go/types"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/catalog"
)

func (b *builder) addEvent(d decl) {
	pos := d.obj.Pos()
	if !b.claim("event", d.name, pos, "event names are global; rename one") {
		return
	}
	doc := b.doc(pos)
	b.requireDoc(doc, pos, fmt.Sprintf("event %q (%s)", d.name, d.obj.Name()), "say when it fires and what listeners may do; it is the event's documentation")
	e := catalog.Event{
		Name: d.name, Mode: d.mode, Var: varRef(d.obj),
		Doc: doc.text, Summary: synopsis(doc.text), Source: b.source(pos),
	}
	b.startRefs()
	defer func() { e.Types = b.endRefs(); b.cat.Events = append(b.cat.Events, e) }()

	e.Payload, e.Params = b.payload(d, d.targs[0])
	for _, f := range e.Params {
		if g := f.Go; g != nil && g.Kind == catalog.KindNamed && g.Pkg == KitPath && g.Name == "Session" {
			e.Session = f.JSName
		}
	}
	var params []string
	for _, f := range e.Params {
		params = append(params, f.JSName+": "+f.JS) // positional: never optional
	}
	spec, _ := d.mode.Spec()
	var r string
	if spec.Result {
		e.Result, r, _ = b.convert(d.targs[1], site{pos: pos, what: fmt.Sprintf("the result type of event %q", d.name)})
		if spec.Next {
			params = append(params, "next: () => Promise<"+r+">")
		} else {
			r = orPass(r)
		}
	}
	e.Signature = jsQuote(d.name) + "(" + strings.Join(params, ", ") + "): " + spec.JSReturn(r)
}

// orPass adds to a listener's result type r what it returns to pass (bind.Passes):
// undefined, null or false. Every mode with a result and no next() has a pass.
func orPass(r string) string {
	if r == "boolean" {
		return r + " | null | undefined"
	}
	return r + " | null | undefined | false"
}

func optMark(optional bool) string {
	if optional {
		return "?"
	}
	return ""
}

// payload turns an event's payload struct into the listener's positional parameters.
func (b *builder) payload(d decl, t types.Type) (*catalog.GoType, []catalog.Field) {
	what := fmt.Sprintf("the payload of event %q", d.name)
	switch u := types.Unalias(t).(type) {
	case *types.Struct:
		if u.NumFields() == 0 {
			return &catalog.GoType{Kind: catalog.KindStruct}, nil
		}
	case *types.Named:
		st, isStruct := u.Underlying().(*types.Struct)
		switch {
		case !isStruct:
		case !u.Obj().Exported():
			b.errorf(d.obj.Pos(), RuleUnsupported, "%s is the unexported type %s, which generated code cannot name: export it", what, u.Obj().Name())
			return nil, nil
		case u.TypeArgs().Len() > 0:
			b.errorf(d.obj.Pos(), RuleUnsupported, "%s is a generic type: declare a non-generic struct", what)
			return nil, nil
		default:
			gt := &catalog.GoType{Kind: catalog.KindNamed, Pkg: u.Obj().Pkg().Path(), Name: u.Obj().Name()}
			return gt, b.fields(st, u.Obj().Name(), nil)
		}
	}
	b.errorf(d.obj.Pos(), RuleUnsupported, "%s is %s, not a struct: declare a named struct whose fields, in order, are the listener's parameters", what, t)
	return nil, nil
}

func (b *builder) addTool(d decl) {
	pos := d.obj.Pos()
	if !b.claim("tool", d.name, pos, "tool names are global; rename one") {
		return
	}
	doc := b.doc(pos)
	b.requireDoc(doc, pos, fmt.Sprintf("tool %q (%s)", d.name, d.obj.Name()), "it is the description the model reads")
	b.toolPos[d.name] = pos
	t := catalog.Tool{Name: d.name, Var: varRef(d.obj), Doc: doc.text, Summary: synopsis(doc.text), Source: b.source(pos)}
	in := site{pos: pos, what: fmt.Sprintf("the input type of tool %q", d.name)}
	t.Input, _, _ = b.convert(d.targs[0], in)
	if t.Input != nil && (t.Input.Kind != catalog.KindNamed || !isStruct(d.targs[0])) {
		b.errorf(pos, RuleUnsupported, "%s is %s: a tool's input is a JSON object, so declare it as a named struct", in.what, d.targs[0])
	}
	t.Output, _, _ = b.convert(d.targs[1], site{pos: pos, what: fmt.Sprintf("the output type of tool %q", d.name)})
	b.cat.Tools = append(b.cat.Tools, t)
}

func isStruct(t types.Type) bool {
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

func (b *builder) addService(d decl) {
	pos := d.obj.Pos()
	if !b.claim("service", d.name, pos, "service keys are global; rename one") {
		return
	}
	doc := b.doc(pos)
	b.requireDoc(doc, pos, fmt.Sprintf("service %q (%s)", d.name, d.obj.Name()), "say what it provides; it is the service's documentation")
	s := catalog.Service{Key: d.name, Var: varRef(d.obj), Doc: doc.text, Summary: synopsis(doc.text), Source: b.source(pos)}
	named, ptr := serviceType(d.targs[0])
	what := fmt.Sprintf("the type of service %q", d.name)
	switch {
	case named == nil:
		b.errorf(pos, RuleUnsupported, "%s is %s: use a named interface (an abstract seam) or a named struct", what, d.targs[0])
		return
	case !named.Obj().Exported() || named.TypeArgs().Len() > 0:
		b.errorf(pos, RuleUnsupported, "%s is %s: generated code must name it, so use an exported, non-generic type", what, d.targs[0])
		return
	}
	_, s.Abstract = named.Underlying().(*types.Interface)
	if s.Abstract && ptr {
		b.errorf(pos, RuleUnsupported, "%s is a pointer to an interface: use the interface itself", what)
		return
	}
	s.TypeName = named.Obj().Name()
	s.Type = &catalog.GoType{Kind: catalog.KindNamed, Pkg: named.Obj().Pkg().Path(), Name: s.TypeName}
	if ptr {
		s.Type = &catalog.GoType{Kind: catalog.KindPointer, Elem: s.Type}
	}
	var recv types.Type = named
	if !s.Abstract {
		recv = types.NewPointer(named) // a struct's whole method set, as the binding calls it on a pointer
	}
	ms := types.NewMethodSet(recv)
	var fns []*types.Func
	for i := range ms.Len() {
		fn := ms.At(i).Obj().(*types.Func)
		if fn.Exported() && !b.doc(fn.Pos()).internal {
			fns = append(fns, fn)
		}
	}
	slices.SortFunc(fns, func(x, y *types.Func) int { return b.byPosition(x.Pos(), y.Pos()) })
	refs := map[string]bool{}
	for _, fn := range fns {
		m := b.method(d.name, s.TypeName, fn)
		for _, r := range m.Types {
			refs[r] = true
		}
		s.Methods = append(s.Methods, m)
	}
	for r := range refs {
		s.Types = append(s.Types, r)
	}
	slices.Sort(s.Types)
	b.cat.Services = append(b.cat.Services, s)
}

// serviceType returns the named type of a service's T and whether T is a pointer to it.
func serviceType(t types.Type) (*types.Named, bool) {
	t = types.Unalias(t)
	p, ptr := t.(*types.Pointer)
	if ptr {
		t = types.Unalias(p.Elem())
	}
	n, _ := t.(*types.Named)
	return n, ptr
}

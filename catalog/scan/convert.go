package scan

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"github.com/cordiskit/cordiskit/catalog"
)

// A site is where a type is used: its position and a phrase for messages, plus which func
// types are allowed there.
type site struct {
	pos      token.Pos
	what     string // "field Agent of AgentErrorEvent", "parameter d of Timer.SetTimeout", …
	callback bool   // a func(T…) parameter: a JavaScript callback
	disposer bool   // a func() result: a disposer JavaScript can call
}

func (s site) plain() site { return site{pos: s.pos, what: s.what} }

// convert describes t for the catalog: its Go type and its JavaScript type. Named types
// are queued to be shaped. ok is false when t cannot cross into JavaScript; the problem
// has been reported.
func (b *builder) convert(t types.Type, s site) (gt *catalog.GoType, js string, ok bool) {
	switch u := types.Unalias(t).(type) {
	case *types.Named:
		return b.named(u, s)
	case *types.Basic:
		return b.basic(u, s)
	case *types.Pointer:
		elem, js, ok := b.convert(u.Elem(), s.plain())
		return &catalog.GoType{Kind: catalog.KindPointer, Elem: elem}, js, ok
	case *types.Slice:
		if isByte(u.Elem()) {
			return b.unsupported(s, "[]byte has no JavaScript form: use string for text or json.RawMessage for JSON")
		}
		elem, js, ok := b.convert(u.Elem(), s.plain())
		return &catalog.GoType{Kind: catalog.KindSlice, Elem: elem}, arrayOf(js), ok
	case *types.Array:
		elem, js, ok := b.convert(u.Elem(), s.plain())
		return &catalog.GoType{Kind: catalog.KindArray, Elem: elem, Len: u.Len()}, arrayOf(js), ok
	case *types.Map:
		if k, isBasic := u.Key().Underlying().(*types.Basic); !isBasic || k.Kind() != types.String {
			return b.unsupported(s, "map keys must be strings to become JavaScript object keys")
		}
		key, kjs, kok := b.convert(u.Key(), s.plain())
		elem, vjs, vok := b.convert(u.Elem(), s.plain())
		return &catalog.GoType{Kind: catalog.KindMap, Key: key, Elem: elem}, "Record<" + kjs + ", " + vjs + ">", kok && vok
	case *types.Signature:
		return b.funcType(u, s)
	case *types.Interface:
		if u.Empty() {
			return &catalog.GoType{Kind: catalog.KindAny}, "unknown", true
		}
		return b.unsupported(s, "an interface type cannot cross into JavaScript as data: use a named struct")
	case *types.Struct:
		if u.NumFields() == 0 {
			return &catalog.GoType{Kind: catalog.KindStruct}, "{}", true
		}
		b.errorf(s.pos, RuleType, "%s has an anonymous struct type, which cannot be documented: declare a named struct type with a doc comment", s.what)
		return nil, "", false
	case *types.Chan:
		return b.unsupported(s, "channels cannot cross into JavaScript: take a callback func(T) or return a value")
	case *types.TypeParam:
		return b.unsupported(s, "type parameters are not supported: use a concrete type")
	}
	return b.unsupported(s, fmt.Sprintf("the type %s is not supported", t))
}

func (b *builder) unsupported(s site, why string) (*catalog.GoType, string, bool) {
	b.errorf(s.pos, RuleUnsupported, "%s: %s", s.what, why)
	return nil, "", false
}

func isByte(t types.Type) bool {
	bt, ok := types.Unalias(t).(*types.Basic)
	return ok && bt.Kind() == types.Byte
}

// arrayOf writes T[] with parentheses where T is a union or a function type.
func arrayOf(js string) string {
	if strings.ContainsAny(js, " |") {
		return "(" + js + ")[]"
	}
	return js + "[]"
}

func (b *builder) basic(u *types.Basic, s site) (*catalog.GoType, string, bool) {
	gt := &catalog.GoType{Kind: catalog.KindBasic, Name: u.Name()}
	switch info := u.Info(); {
	case info&types.IsString != 0:
		return gt, "string", true
	case info&types.IsBoolean != 0:
		return gt, "boolean", true
	case info&(types.IsInteger|types.IsFloat) != 0 && u.Kind() != types.Uintptr:
		return gt, "number", true
	}
	return b.unsupported(s, "the type "+u.Name()+" has no JavaScript form")
}

// funcType handles func types: callbacks (parameters) and disposers (results).
func (b *builder) funcType(u *types.Signature, s site) (*catalog.GoType, string, bool) {
	gt := &catalog.GoType{Kind: catalog.KindFunc}
	switch {
	case s.disposer && u.Params().Len() == 0 && u.Results().Len() == 0:
		return gt, "() => void", true
	case s.callback && u.Results().Len() == 0 && !u.Variadic():
		ok := true
		var params []string
		for i := range u.Params().Len() {
			p := u.Params().At(i)
			pt, pjs, pok := b.convert(p.Type(), site{pos: s.pos, what: s.what + " (its parameter " + itoa(i) + ")"})
			ok = ok && pok
			gt.Params = append(gt.Params, pt)
			params = append(params, jsParamName(p.Name(), i)+": "+pjs)
		}
		return gt, "(" + strings.Join(params, ", ") + ") => void", ok
	case s.callback:
		return b.unsupported(s, "a callback must return nothing and take no variadic parameter: JavaScript listeners are called for their effect")
	case s.disposer:
		return b.unsupported(s, "the only func a method may return is a disposer, func()")
	}
	return b.unsupported(s, "func values can only be callback parameters or func() disposer results of a service method")
}

func itoa(i int) string { return fmt.Sprint(i) }

// jsParamName names a parameter in a JavaScript signature.
func jsParamName(name string, i int) string {
	if name == "" || name == "_" {
		return "arg" + itoa(i)
	}
	return name
}

// named handles defined types: the few the binding knows (error, time.Duration,
// time.Time, json.RawMessage) and the runtime's own, which become catalog types.
func (b *builder) named(n *types.Named, s site) (*catalog.GoType, string, bool) {
	obj := n.Obj()
	if obj.Pkg() == nil { // universe scope
		if obj.Name() == "error" {
			return &catalog.GoType{Kind: catalog.KindBasic, Name: "error"}, "Error", true
		}
		return b.unsupported(s, "the type "+obj.Name()+" has no JavaScript form")
	}
	path, name := obj.Pkg().Path(), obj.Name()
	gt := &catalog.GoType{Kind: catalog.KindNamed, Pkg: path, Name: name}
	switch path + "." + name {
	case "time.Duration":
		return gt, "number", true
	case "time.Time", KitPath + ".Session":
		return gt, "string", true
	case "encoding/json.RawMessage":
		return gt, "unknown", true
	case "context.Context":
		return b.unsupported(s, "context.Context can only be the first parameter of a service method, where it makes the method async")
	case KitPath + ".Context":
		return b.unsupported(s, "*kit.Context can only be a parameter of a service method, where the binding supplies the caller's context")
	}
	if n.TypeArgs().Len() > 0 {
		return b.unsupported(s, "generic type "+name+" is not supported: declare a non-generic named type")
	}
	if !obj.Exported() {
		return b.unsupported(s, "unexported type "+path+"."+name+" cannot be named in JavaScript or in generated code: export it")
	}
	switch n.Underlying().(type) {
	case *types.Interface:
		return b.unsupported(s, "interface type "+name+" cannot cross into JavaScript as data: use a named struct")
	case *types.Signature:
		return b.unsupported(s, "named func type "+name+" is not supported: use an unnamed func type")
	case *types.Chan:
		return b.unsupported(s, "channel type "+name+" cannot cross into JavaScript")
	}
	b.enqueue(n, s)
	if b.refs != nil {
		b.refs[name] = true
	}
	return gt, name, true
}

// enqueue schedules a named type to be shaped, once, and reports a second type of the
// same name from another package: signatures name types without their package.
func (b *builder) enqueue(n *types.Named, s site) {
	key := n.Obj().Pkg().Path() + "." + n.Obj().Name()
	if _, ok := b.types[key]; ok {
		return
	}
	e := &typeEntry{named: n, use: s}
	b.types[key] = e
	if old, ok := b.byName[n.Obj().Name()]; ok {
		b.errorf(s.pos, RuleDuplicate, "%s uses type %s, but a type of that name from %s is used too (at %s): JavaScript signatures name types without their package, so rename one",
			s.what, key, old.named.Obj().Pkg().Path(), b.position(old.use.pos))
		return
	}
	b.byName[n.Obj().Name()] = e
	b.queue = append(b.queue, e)
}

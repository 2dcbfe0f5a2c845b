package sandbox

import (
	"reflect"
	"slices"

	"github.com/dop251/goja"
)

// Describing a thrown value never runs the mount's code. Reporting an error is what the
// host does when something already went wrong — often outside any time bound, sometimes
// while a Go panic unwinds — so a getter, a toString, a Symbol.toPrimitive or a Proxy trap
// of the mount's must not run there: it could loop, throw a value whose description throws
// in turn, or re-enter the lock. The description reads own data properties only (through
// the intrinsic Reflect.getOwnPropertyDescriptor, out of mount code's reach until captured:
// see ownDescriptor), walks
// prototypes only through ordinary objects, and is capped in length.

// Caps on a description: the message a model reads, and the stack beside it.
const (
	maxDescribedMessage = 4 << 10
	maxDescribedStack   = 8 << 10
	// maxProtoWalk bounds the prototypes searched for an Error's name or a constructor.
	maxProtoWalk = 32
)

var (
	proxyType     = reflect.TypeFor[goja.Proxy]()
	plainType     = reflect.TypeFor[map[string]any]()
	arrayType     = reflect.TypeFor[[]any]()
	nativeFunType = reflect.TypeFor[func(goja.FunctionCall) goja.Value]()
	classType     = reflect.TypeFor[func(goja.ConstructorCall) *goja.Object]()
)

// ownDescriptor returns the intrinsic Reflect.getOwnPropertyDescriptor, read from the
// runtime's own Reflect on the first call. JavaScript reaches Reflect only through the
// realm's global object, which calls ownDescriptor before it hands Reflect out (see
// sandboxGlobals.builtin), so what describe calls is the engine's, never a replacement,
// and a realm that describes nothing never builds it. Lock held.
func (r *Realm) ownDescriptor() goja.Callable {
	if r.ownDesc == nil {
		if refl, ok := r.builtin("Reflect").(*goja.Object); ok {
			r.ownDesc, _ = goja.AssertFunction(refl.Get("getOwnPropertyDescriptor"))
		}
	}
	return r.ownDesc
}

// describe renders a thrown or rejected value: a primitive as String(v) would, an Error as
// "name: message" with its stack, any other object as "[object Ctor]" (with its own
// message, when it has a string one). It runs no code of the mount's (see above) and
// cannot throw. Lock held.
func (r *Realm) describe(v goja.Value) (msg, stack string) {
	switch x := v.(type) {
	case nil:
		return "undefined", ""
	case *goja.Symbol:
		return truncate("Symbol("+x.String()+")", maxDescribedMessage), ""
	case *goja.Object:
		if !r.descriptorsSafe() {
			return "[object " + kind(x) + "]", ""
		}
		if err := r.try(func() { msg, stack = r.describeObject(x) }); err != nil {
			msg, stack = "[object that cannot be described]", "" // a Go error in the engine; nothing of the mount's
		}
		return msg, stack
	}
	return truncate(v.String(), maxDescribedMessage), ""
}

func (r *Realm) describeObject(o *goja.Object) (msg, stack string) {
	if !ordinary(o) {
		// A Proxy (every read would run a trap), a Go-backed object (a service view reads
		// another mount's object): named by its kind alone.
		return "[object " + kind(o) + "]", ""
	}
	if o.ClassName() == "Error" {
		name, m, stack := r.errorParts(o)
		msg = name
		if m != "" {
			msg += ": " + m
		}
		return truncate(msg, maxDescribedMessage), truncate(stack, maxDescribedStack)
	}
	msg = "[object " + r.constructorName(o) + "]"
	if m := r.dataString(o, "message"); m != "" {
		msg += ": " + m
	}
	return truncate(msg, maxDescribedMessage), ""
}

// kind is o's class ("Object", "Error", "Function") or "Proxy", read without running code
// (a revoked Proxy has no class: asking for it throws).
func kind(o *goja.Object) string {
	if o.ExportType() == proxyType {
		return "Proxy"
	}
	return o.ClassName()
}

// descriptorFields are the properties goja gives a property descriptor it returns.
var descriptorFields = [...]string{"value", "writable", "get", "set", "enumerable", "configurable"}

// descriptorsSafe reports whether the intrinsic Reflect.getOwnPropertyDescriptor runs no
// code of the mount's. It creates the descriptor by setting its fields on a fresh object
// whose prototype is Object.prototype, so a setter the mount put there under one of those
// names would run; no real plugin does that, and then objects are described by kind only.
// Lock held.
func (r *Realm) descriptorsSafe() bool {
	if r.ownDescriptor() == nil {
		return false
	}
	for _, k := range r.rt.NewObject().Prototype().GetOwnPropertyNames() {
		if slices.Contains(descriptorFields[:], k) {
			return false
		}
	}
	return true
}

// errorParts reads an Error's name ("Error" unless it is plain data), message and stack
// without running the mount's code, for describe and for the membrane's copy of an Error.
// Lock held.
func (r *Realm) errorParts(o *goja.Object) (name, message, stack string) {
	if !ordinary(o) || !r.descriptorsSafe() {
		return "Error", "", ""
	}
	name, nameOK := r.inherited(o, "name")
	message, msgOK := r.inherited(o, "message")
	if !nameOK || name == "" {
		name = "Error"
	}
	// goja formats an Error's stack on its first read, from the name and message it reads
	// with getters (and toString): read it only when both are plain data.
	if nameOK && msgOK {
		stack = r.dataString(o, "stack")
	}
	return name, message, stack
}

// ordinary reports whether reading o's own properties runs no code but the engine's: not
// a Proxy, not an object backed by Go (a DynamicObject, a reflected value).
func ordinary(o *goja.Object) bool {
	switch o.ExportType() {
	case plainType, arrayType, nativeFunType, classType:
		return true
	}
	return false
}

// inherited resolves key as a property read would — the first object on o's prototype
// chain that has it as an own property — but without running code: ok is false when that
// property is an accessor, a Proxy or a Go-backed object is on the way, or its value is
// not a string or undefined (reading it as a string could call the mount's toString).
// Lock held.
func (r *Realm) inherited(o *goja.Object, key string) (s string, ok bool) {
	for i := 0; o != nil; i++ {
		if i == maxProtoWalk || !ordinary(o) {
			return "", false
		}
		if v, own := r.ownData(o, key); own {
			switch {
			case v == nil:
				return "", false // an accessor
			case goja.IsUndefined(v):
				return "", true
			case goja.IsString(v):
				return v.String(), true
			}
			return "", false
		}
		o = o.Prototype()
	}
	return "", true
}

// constructorName names o's class as [object Foo] does in a console: the name of the first
// constructor on its prototype chain, read without getters; else its class ("Object").
func (r *Realm) constructorName(o *goja.Object) string {
	class := o.ClassName()
	for p, i := o, 0; p != nil && i < maxProtoWalk && ordinary(p); i++ {
		c, own := r.ownData(p, "constructor")
		if own {
			if fn, ok := c.(*goja.Object); ok && ordinary(fn) {
				if name := r.dataString(fn, "name"); name != "" {
					return truncate(name, 256)
				}
			}
			return class
		}
		p = p.Prototype()
	}
	return class
}

// dataString returns o's own string data property key, or "".
func (r *Realm) dataString(o *goja.Object, key string) string {
	if v, _ := r.ownData(o, key); v != nil && goja.IsString(v) {
		return v.String()
	}
	return ""
}

// ownData reads o's own property key without running a getter: the value of a data
// property (own true), nil for an accessor (own true), nil and false when o has no such own
// property. o must be ordinary. Lock held.
func (r *Realm) ownData(o *goja.Object, key string) (v goja.Value, own bool) {
	ownDesc := r.ownDescriptor()
	if ownDesc == nil {
		return nil, false
	}
	d, err := ownDesc(goja.Undefined(), o, r.rt.ToValue(key))
	desc, ok := d.(*goja.Object)
	if err != nil || !ok {
		return nil, false
	}
	// The descriptor is a fresh object: a data descriptor has an own value, an accessor
	// has none, and reading a missing one would reach Object.prototype, where the mount may
	// have put a getter.
	if !slices.Contains(desc.GetOwnPropertyNames(), "value") {
		return nil, true
	}
	return desc.Get("value"), true
}

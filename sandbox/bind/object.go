package bind

import (
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/dop251/goja"
)

// A Property is one key and value of a plain object [PlainObject] builds: make one with
// [Prop].
type Property struct {
	key string
	v   goja.Value
}

// Prop is the property key holding v.
func Prop(key string, v goja.Value) Property { return Property{key, v} }

// PlainObject returns a fresh plain JavaScript object holding ps, in order, as own data
// properties (a later property of the same key replaces an earlier one): the value of a
// catalogued struct, field by field, or an object of natives a binding written by hand
// hands out. Every key is an own property, "__proto__" too: no key sets the object's
// prototype. Lock held.
func PlainObject(r *sandbox.Realm, ps ...Property) *goja.Object {
	o := realms.Runtime(r).NewObject()
	for _, p := range ps {
		define(o, p.key, p.v)
	}
	return o
}

// define makes key an own enumerable, writable, configurable data property of o holding
// v — what an assignment makes on a fresh ordinary object, except that "__proto__" is an
// ordinary key, as in a JSON document, instead of Object.prototype's setter.
func define(o *goja.Object, key string, v goja.Value) {
	_ = o.DefineDataProperty(key, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE) // a fresh extensible object: cannot fail
}

// ThrowTypeError raises a JavaScript TypeError whose message is msg, for a binding
// written by hand that refuses an argument in words of its own (a generated one reads its
// arguments with an [Arg], which throws one naming the method and parameter). It does not
// return. Lock held.
func ThrowTypeError(r *sandbox.Realm, msg string) { panic(realms.Runtime(r).NewTypeError(msg)) }

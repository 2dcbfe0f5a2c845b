package bind

import (
	"context"
	"testing"

	"github.com/dop251/goja"

	"github.com/cordiskit/cordiskit/sandbox"
)

// TestObjectsKeepTheirPrototype: a "__proto__" key — a struct's field, or a key of Go
// data a map brings (a tool's input, a file name) — is an own property of the object
// PlainObject or MapValue builds, never its prototype: JavaScript sees the key, and the
// object still inherits from Object.prototype only, whatever value the key holds.
func TestObjectsKeepTheirPrototype(t *testing.T) {
	hostile := map[string]map[string]string{"__proto__": {"isAdmin": "yes"}, "a": {"b": "c"}}
	globals := map[string]func(*sandbox.Realm) goja.Value{
		"plain": func(r *sandbox.Realm) goja.Value {
			return PlainObject(r, Prop("__proto__", PlainObject(r, Prop("isAdmin", Value(r, true)))), Prop("x", Value(r, 1)))
		},
		"fromMap": func(r *sandbox.Realm) goja.Value {
			return MapValue(r, hostile, MapResult[string](Value[string]))
		},
	}
	m := runWith(t, globals, `return { name: 'probe', apply() {} }`)
	for _, check := range []string{
		`Object.getPrototypeOf(plain) === Object.prototype`,
		`plain.isAdmin === undefined && Object.keys(plain).join() === '__proto__,x'`,
		`Object.getOwnPropertyDescriptor(plain, '__proto__').value.isAdmin === true`,
		`Object.getPrototypeOf(fromMap) === Object.prototype`,
		`fromMap.isAdmin === undefined && Object.keys(fromMap).join() === '__proto__,a'`,
		`Object.getOwnPropertyDescriptor(fromMap, '__proto__').value.isAdmin === 'yes'`,
		`({}).isAdmin === undefined`,
	} {
		var got bool
		err := m.Realm().Do(context.Background(), func(rt *goja.Runtime) error {
			v, err := rt.RunString(check)
			got = err == nil && v.ToBoolean()
			return err
		})
		if err != nil || !got {
			t.Errorf("%s: %v, %v", check, got, err)
		}
	}
}

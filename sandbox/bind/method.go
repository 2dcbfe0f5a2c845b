package bind

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/sandbox/internal/engine"
	"github.com/dop251/goja"
)

// An Arg reads v, the argument JavaScript passed for parameter param of method
// (undefined when it passed none), as a T, throwing a TypeError when it does not fit.
// [String], [Duration], [Callback] and their siblings are Args. It reads one value, not
// the whole call, so that reading an argument copies no goja.FunctionCall.
type Arg[T any] func(r *sandbox.Realm, v goja.Value, method, param string) T

// A Result builds the JavaScript value of a Go result. Lock held.
type Result[T any] func(r *sandbox.Realm, x T) goja.Value

// A Method is one catalogued method of a service, bound for one realm: its JavaScript
// name and the native function that calls it.
type Method struct {
	name string
	fn   goja.Value
}

// Service returns v, the value a service holds, as the type T its binder expects, or an
// error naming the service key and both types.
func Service[T any](key string, v any) (T, error) {
	s, ok := v.(T)
	if !ok {
		return s, fmt.Errorf("service %q holds a %T, but its binding expects a %s", key, v, typeString(reflect.TypeFor[T]()))
	}
	return s, nil
}

// typeString spells t with its full package path: *example.com/agent.Store.
func typeString(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		return "*" + typeString(t.Elem())
	}
	if t.PkgPath() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// Object returns a JavaScript object holding exactly the methods ms. Lock held.
func Object(r *sandbox.Realm, ms ...Method) (*goja.Object, error) {
	o := realms.Runtime(r).NewObject()
	for _, m := range ms {
		if err := o.Set(m.name, m.fn); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// guard is deferred first by every method's native function: a Go panic inside it
// becomes a JavaScript Error naming the method (as with [sandbox.Realm.Func], without a
// second function around the method's own).
func guard(r *sandbox.Realm, method string) {
	if x := recover(); x != nil {
		realms.Rethrow(r, method, x)
	}
}

// A crossing takes a synchronous method's native function out of its engine's lock
// around the Go call and back: Realm.Unlocked split in two (leave and back, around fn)
// with the retake on a panic folded into the guard the function defers anyway.
type crossing struct {
	l     *engine.Lock
	chain *engine.Entry // what Suspend returned, while out
	out   bool          // the lock is released: back, or guard on a panic, retakes it
}

func (c *crossing) leave() { c.chain, c.out = c.l.Suspend(), true }

func (c *crossing) back() { c.out = false; c.l.Resume(c.chain) }

// guard is [guard] for a native function that goes out through c: it first retakes the
// lock when a panic (or runtime.Goexit) left fn out, as Realm.Unlocked's deferred retake
// does, so the lock is held when the error is thrown into JavaScript and on return.
func (c *crossing) guard(r *sandbox.Realm, method string) {
	if c.out {
		c.back()
	}
	if x := recover(); x != nil {
		realms.Rethrow(r, method, x)
	}
}

// newMethod makes the Method of method ("fs.readFile"), whose JavaScript name is what
// follows the service key, from its native function fn, which defers guard first.
func newMethod(r *sandbox.Realm, method string, fn func(call goja.FunctionCall) goja.Value) Method {
	return Method{name: method[strings.LastIndexByte(method, '.')+1:], fn: realms.Runtime(r).ToValue(fn)}
}

// errAbsent is what [Found] returns for a result that is not there: JavaScript gets
// undefined.
var errAbsent = errors.New("bind: no result")

// Found adapts a (T, bool) result to the canonical (T, error) form: not found is
// undefined in JavaScript.
func Found[T any](v T, ok bool) (T, error) {
	if !ok {
		return v, errAbsent
	}
	return v, nil
}

// Void adapts a result that is only an error (or nothing: Void(nil)) to the canonical
// form; JavaScript gets undefined.
func Void(err error) (struct{}, error) { return struct{}{}, err }

// noResult is what JavaScript gets from a synchronous call without a value to build (the
// FuncN helpers inline the rest: res(r, x)): err thrown, unless it is nil or marks an
// absent result, which is undefined.
func noResult(r *sandbox.Realm, err error) goja.Value {
	if err != nil && err != errAbsent {
		realms.Throw(r, err)
	}
	return goja.Undefined()
}

// asyncResult is syncResult for an async call: the settle func of its promise (nil for
// undefined), or the error that rejects it. Off the lock.
func asyncResult[R any](r *sandbox.Realm, x R, err error, res Result[R]) (func() goja.Value, error) {
	if err == errAbsent || res == nil && err == nil {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return func() goja.Value { return res(r, x) }, nil
}

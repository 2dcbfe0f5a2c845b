package sandbox

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/dop251/goja"
)

// Provided is what the kit's service store holds for a value a mount offered with
// ctx.provide. Mounts that inject the key reach it through a membrane: primitives are
// copied, arrays copied element by element, functions wrapped (a call runs in the
// provider's realm, bounded by CallTimeout, with its arguments and result converted back),
// promises bridged, errors copied and other objects seen through live read-only views. No
// runtime ever holds another's objects. Go code cannot call it (it is not a Go service).
type Provided struct {
	realm *Realm
	value goja.Value
}

// Mount returns the id of the providing mount.
func (p *Provided) Mount() string { return p.realm.id }

// valueIn returns the value as seen from realm to. Lock held.
func (p *Provided) valueIn(to *Realm) goja.Value {
	if p.realm == to {
		return p.value
	}
	m := membrane{from: p.realm, to: to}
	var out goja.Value
	if err := m.inFrom("reading a provided service", func() { out = m.cross(p.value, nil, 0) }); err != nil {
		to.Throw(err)
	}
	return out
}

// A membrane converts values of realm from into realm to. All methods run with the lock
// held, inside an entry of to.
type membrane struct{ from, to *Realm }

func (m membrane) back() membrane { return membrane{from: m.to, to: m.from} }

// inFrom runs f as an entry of the provider's realm (bounded by CallTimeout) and returns
// what it threw, described for the consumer.
func (m membrane) inFrom(what string, f func()) error {
	from := m.from
	e, err := from.begin(nil, what, "CallTimeout", from.loop.timeouts.Call)
	if err != nil {
		return fmt.Errorf("the service was provided by %s, which is no longer mounted: %w", from.id, ErrClosed)
	}
	err = from.wrapErr(e, from.try(f))
	from.end(e)
	return err
}

// cross converts v. holder is the object a function was read from (its this), or nil.
func (m membrane) cross(v goja.Value, holder *goja.Object, depth int) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		if _, sym := v.(*goja.Symbol); sym || v == nil {
			return goja.Undefined() // symbols are per realm
		}
		return v // primitives belong to no runtime
	}
	if fn, ok := goja.AssertFunction(o); ok {
		return m.wrapFunc(fn, holder)
	}
	if p := asPromise(o); p != nil {
		return m.bridgePromise(o)
	}
	switch o.ClassName() {
	case "Array":
		if depth >= m.to.loop.limits.MaxDepth {
			m.to.throwf("a value from %s is nested deeper than %d levels (a cycle?)", m.from.id, m.to.loop.limits.MaxDepth)
		}
		n := arrayLen(o)
		items := make([]any, n)
		for i := range items {
			items[i] = m.cross(o.Get(strconv.Itoa(i)), nil, depth+1)
		}
		return m.to.rt.NewArray(items...)
	case "Error":
		// A copy, not a view, so the consumer gets a real Error (instanceof Error, stack).
		// It keeps the Go error the provider's Error was made from, if any.
		e := m.to.newError(&causeError{msg: stringProp(o, "message", ""), err: m.from.goError(o)})
		if name := stringProp(o, "name", "Error"); name != "Error" {
			_ = e.DefineDataProperty("name", m.to.rt.ToValue(name), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
		if stack := stringProp(o, "stack", ""); stack != "" {
			_ = e.DefineDataProperty("stack", m.to.rt.ToValue(stack), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
		return e
	}
	return m.to.rt.NewDynamicObject(&view{m: m, obj: o})
}

// A causeError is an error with its own message wrapping err (which may be nil).
type causeError struct {
	msg string
	err error
}

func (e *causeError) Error() string { return e.msg }
func (e *causeError) Unwrap() error { return e.err }

// crossErr describes an error from the provider's realm for the consumer.
func (m membrane) crossErr(err error) *goja.Object {
	return m.to.newError(err)
}

// wrapFunc returns a consumer-side function that calls fn in the provider's realm.
func (m membrane) wrapFunc(fn goja.Callable, holder *goja.Object) goja.Value {
	this := goja.Value(goja.Undefined())
	if holder != nil {
		this = holder
	}
	back := m.back()
	return m.to.Func("cross-mount call", func(call goja.FunctionCall) goja.Value {
		var out goja.Value
		threw := false
		err := m.inFrom("a cross-mount call", func() {
			args := make([]goja.Value, len(call.Arguments))
			for i, a := range call.Arguments {
				args[i] = back.cross(a, nil, 0)
			}
			v, err := fn(this, args...)
			var ex *goja.Exception
			if errors.As(err, &ex) {
				// What the provider threw crosses like a value: the consumer can catch it.
				out, threw = m.cross(ex.Value(), nil, 0), true
				return
			}
			if err != nil {
				panic(err) // uncatchable: a time bound, a stack overflow
			}
			out = m.cross(v, nil, 0)
		})
		if err != nil {
			panic(m.crossErr(err))
		}
		if threw {
			panic(out)
		}
		return out
	})
}

// bridgePromise returns a consumer promise that settles with the provider's promise.
func (m membrane) bridgePromise(po *goja.Object) goja.Value {
	to, from := m.to, m.from
	p, resolve, reject := to.rt.NewPromise()
	settle := func(rejected bool) goja.Value {
		return from.rt.ToValue(func(call goja.FunctionCall) goja.Value {
			v := call.Argument(0)
			// Runs in a provider job; settling enters the consumer.
			e, err := to.begin(nil, "settling a cross-mount promise", "CallTimeout", to.loop.timeouts.Call)
			if err != nil {
				return goja.Undefined() // the consumer is gone
			}
			err = to.try(func() {
				cv := m.cross(v, nil, 0)
				var err error
				if rejected {
					err = reject(cv)
				} else {
					err = resolve(cv)
				}
				if err != nil {
					panic(err)
				}
			})
			if err = to.wrapErr(e, err); err != nil {
				to.report("settling a cross-mount promise failed", err)
			}
			to.end(e)
			return goja.Undefined()
		})
	}
	if _, err := from.promiseThen(po, settle(false), settle(true)); err != nil {
		_ = reject(m.crossErr(from.wrapErr(&entry{r: from, b: bound{what: "a cross-mount promise"}}, err)))
	}
	return to.rt.ToValue(p)
}

// A view is a consumer-side, read-only, live view of a provider object: each read converts
// the current value of the property.
type view struct {
	m   membrane
	obj *goja.Object
	fns map[*goja.Object]goja.Value // wrappers of methods read so far, by function
}

// A view's prototype is the consumer's Object.prototype. So that no path leads to the
// provider's intrinsics, the view answers nil — and the consumer's chain answers instead —
// for an object or function under __proto__ or constructor (the provider's prototypes and
// constructors, including a class's) and for whatever the provider object only inherits
// from the provider's Object.prototype (hasOwnProperty, toString, __defineGetter__, …).
// Methods and getters on the provider's own classes still work.

// provider reads key from the provider object and says whether the view shows it. Called
// inside an entry of the provider's realm.
func (v *view) provider(key string) (goja.Value, bool) {
	pv := v.obj.Get(key)
	if pv == nil {
		return nil, false
	}
	o, isObj := pv.(*goja.Object)
	if !isObj {
		return pv, true // a primitive crosses as it is, whatever its name
	}
	if key == "__proto__" || key == "constructor" {
		return nil, false
	}
	objProto, _ := v.m.from.protos()
	if v.obj != objProto {
		if inherited := objProto.Get(key); inherited != nil && inherited.SameAs(o) {
			return nil, false
		}
	}
	return pv, true
}

func (v *view) Get(key string) goja.Value {
	var out goja.Value
	err := v.m.inFrom("reading a provided service", func() {
		pv, ok := v.provider(key)
		if !ok {
			return // not there: the consumer's prototype chain answers
		}
		if fo, ok := pv.(*goja.Object); ok {
			if w, ok := v.fns[fo]; ok {
				out = w
				return
			}
			if _, isFn := goja.AssertFunction(fo); isFn {
				out = v.m.cross(fo, v.obj, 0)
				if v.fns == nil {
					v.fns = map[*goja.Object]goja.Value{}
				}
				v.fns[fo] = out
				return
			}
		}
		out = v.m.cross(pv, v.obj, 0)
	})
	if err != nil {
		panic(v.m.crossErr(err))
	}
	return out
}

func (v *view) Has(key string) bool {
	var ok bool
	_ = v.m.inFrom("reading a provided service", func() { _, ok = v.provider(key) })
	return ok
}

func (v *view) Keys() []string {
	var keys []string
	_ = v.m.inFrom("reading a provided service", func() { keys = v.obj.Keys() })
	return keys
}

func (v *view) Set(key string, _ goja.Value) bool {
	v.m.to.throwf("cannot assign .%s: this value was provided by %s and is read-only here; call its methods to change it", key, v.m.from.id)
	return false
}

func (v *view) Delete(key string) bool {
	v.m.to.throwf("cannot delete .%s: this value was provided by %s and is read-only here", key, v.m.from.id)
	return false
}

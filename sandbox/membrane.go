package sandbox

import (
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"strconv"

	"github.com/dop251/goja"
)

// Provided is what the kit's service store holds for a value a mount offered with
// ctx.provide. Mounts that inject the key reach it through a membrane: primitives are
// copied, arrays copied element by element, functions wrapped (a call runs in the
// provider's realm, bounded by CallTimeout, with its arguments and result converted back),
// promises bridged, errors copied and other objects seen through live read-only views. No
// runtime ever holds another's objects. Go code cannot call it (it is not a Go service).
//
// Each crossing (a value read, the arguments of one call, a result, a thrown or settled
// value) is one conversion with its own budget. An array reached twice in one crossing is
// copied once and shared in the copy, as structured cloning does, so a DAG does not copy
// as a tree; a crossing of more than Limits.MaxNodes array elements throws a *LimitError
// naming the path where it ran out ("ctx.svc.list[3]"), an array's length checked before
// anything is allocated (a sparse array of length 2^32−1 is refused at once). Strings are
// not copied (they belong to no runtime) and cost nothing here.
type Provided struct {
	realm *Realm
	value goja.Value
	name  string // the key it is provided under, for paths in errors; "" when unknown
}

// Mount returns the id of the providing mount.
func (p *Provided) Mount() string { return p.realm.id }

// valueIn returns the value as seen from realm to. Lock held.
func (p *Provided) valueIn(to *Realm) goja.Value {
	if p.realm == to {
		return p.value
	}
	m := membrane{from: p.realm, to: to}
	root := &crossPath{key: "ctx." + p.name}
	if p.name == "" {
		root.key = "the value provided by " + p.realm.id
	}
	var out goja.Value
	if err := m.inFrom("reading a provided service", func() { out = m.cross(newCrossing(to), p.value, nil, 0, crossAt{parent: root}) }); err != nil {
		to.throw(err)
	}
	return out
}

// A crossPath is the path of a value crossing the membrane ("ctx.svc.list[3]"): an
// immutable chain, rendered only when an error names it.
type crossPath struct {
	parent *crossPath
	key    string // a root or suffix (verbatim), or a property key
	index  int
	kind   pathKind
}

type pathKind uint8

const (
	pathVerbatim pathKind = iota // the root, or a suffix such as "(…) argument 0"
	pathKey                      // .key or ["odd key"]
	pathIndex                    // [3]
)

func (p *crossPath) String() string {
	if p == nil {
		return ""
	}
	s := p.parent.String()
	switch p.kind {
	case pathKey:
		return joinPath(s, p.key)
	case pathIndex:
		return s + "[" + strconv.Itoa(p.index) + "]"
	}
	return s + p.key
}

// A crossAt is where cross is: a child of parent, not yet allocated as a crossPath (most
// values are primitives, whose path is never needed).
type crossAt struct {
	parent *crossPath
	key    string
	index  int
	kind   pathKind
}

// path allocates the crossAt's crossPath; with no child segment it is the parent.
func (at crossAt) path() *crossPath {
	if at.kind == pathVerbatim && at.key == "" {
		return at.parent
	}
	return &crossPath{parent: at.parent, key: at.key, index: at.index, kind: at.kind}
}

// child returns the path of p's suffix (verbatim), key or index.
func (p *crossPath) child(kind pathKind, key string, index int) crossAt {
	return crossAt{parent: p, key: key, index: index, kind: kind}
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
	err = from.wrapErr(e.Bound().What, from.try(f))
	from.end(e)
	return err
}

// A crossing is one conversion through the membrane: its budget, and the copies of arrays
// it has made. An array reached twice (a DAG: forty levels of arrays each holding the
// previous one twice) is copied once and the copy shared again, as structured cloning
// does, so the copy is never bigger than what the provider holds; the budget then bounds
// what the provider holds.
type crossing struct {
	bud    conv.Budget
	copies map[*goja.Object]goja.Value // provider array → its copy
}

func newCrossing(to *Realm) *crossing {
	c := &crossing{bud: *newBudget(to)}
	c.bud.Shares = true
	return c
}

// cross converts v, at path at, as part of crossing c. holder is the object a function was
// read from (its this), or nil. A copy that outgrows the budget, or nests deeper than
// Limits.MaxDepth (a cycle), panics with a crossFailure, which the entry around the
// crossing returns as an error.
func (m membrane) cross(c *crossing, v goja.Value, holder *goja.Object, depth int, at crossAt) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		if _, sym := v.(*goja.Symbol); sym || v == nil {
			return goja.Undefined() // symbols are per realm
		}
		return v // primitives belong to no runtime
	}
	if fn, ok := goja.AssertFunction(o); ok {
		return m.wrapFunc(fn, holder, at.path())
	}
	if p := asPromise(o); p != nil {
		return m.bridgePromise(o, at.path())
	}
	switch o.ClassName() {
	case "Array":
		if cp, ok := c.copies[o]; ok {
			return cp
		}
		path := at.path()
		if depth >= m.to.loop.limits.MaxDepth {
			panic(crossFailure{fmt.Errorf("%s: a value from %s is nested deeper than %d levels (a cycle?); pass a flatter value", path, m.from.id, m.to.loop.limits.MaxDepth)})
		}
		// Before allocating: a sparse array may claim 2^32-1 elements. The path is
		// rendered only for the error.
		n := conv.ArrayLen(o)
		if !c.bud.HasNodes(n) {
			panic(crossFailure{c.bud.NeedNodes(n, path.String())})
		}
		c.bud.Nodes -= int(n)
		items := make([]any, n)
		for i := range items {
			items[i] = m.cross(c, o.Get(strconv.Itoa(i)), nil, depth+1, path.child(pathIndex, "", i))
		}
		cp := m.to.rt.NewArray(items...)
		if c.copies == nil {
			c.copies = map[*goja.Object]goja.Value{}
		}
		c.copies[o] = cp
		return cp
	case "Error":
		// A copy, not a view, so the consumer gets a real Error (instanceof Error, stack).
		// It keeps the Go error the provider's Error was made from, if any.
		// Its parts are read without getters, as a thrown value is described (errorParts).
		name, message, stack := m.from.errorParts(o)
		e := m.to.newError(&causeError{msg: message, err: m.from.goError(o)})
		if name != "Error" {
			_ = e.DefineDataProperty("name", m.to.rt.ToValue(name), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
		if stack != "" {
			_ = e.DefineDataProperty("stack", m.to.rt.ToValue(stack), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
		return e
	}
	return m.to.rt.NewDynamicObject(&view{m: m, obj: o, path: at.path()})
}

// A crossFailure is the panic of a copy that cannot be made (too many elements, too deep).
// It is an error, so the entry around the crossing returns it (Realm.try).
type crossFailure struct{ err error }

func (f crossFailure) Error() string { return f.err.Error() }
func (f crossFailure) Unwrap() error { return f.err }

// tryCross is cross returning a crossFailure as an error; every other panic passes.
func (m membrane) tryCross(c *crossing, v goja.Value, at crossAt) (out goja.Value, err error) {
	defer func() {
		if x := recover(); x != nil {
			f, ok := x.(crossFailure)
			if !ok {
				panic(x)
			}
			err = f.err
		}
	}()
	return m.cross(c, v, nil, 0, at), nil
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

// wrapFunc returns a consumer-side function that calls fn, read at path, in the provider's
// realm. The arguments of one call cross as one conversion, the result (or what fn threw)
// as another.
func (m membrane) wrapFunc(fn goja.Callable, holder *goja.Object, path *crossPath) goja.Value {
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
			c := newCrossing(m.from)
			for i, a := range call.Arguments {
				args[i] = back.cross(c, a, nil, 0, path.child(pathVerbatim, "(…) argument "+strconv.Itoa(i), 0))
			}
			v, err := fn(this, args...)
			var ex *goja.Exception
			if errors.As(err, &ex) {
				// What the provider threw crosses like a value: the consumer can catch it.
				out, threw = m.cross(newCrossing(m.to), ex.Value(), nil, 0, path.child(pathVerbatim, "(…) threw", 0)), true
				return
			}
			if err != nil {
				panic(err) // uncatchable: a time bound, a stack overflow
			}
			out = m.cross(newCrossing(m.to), v, nil, 0, path.child(pathVerbatim, "()", 0))
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

// bridgePromise returns a consumer promise that settles with the provider's promise, read
// at path.
func (m membrane) bridgePromise(po *goja.Object, path *crossPath) goja.Value {
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
				suffix, rej := " (resolved)", rejected
				if rej {
					suffix = " (rejected)"
				}
				cv, err := m.tryCross(newCrossing(to), v, path.child(pathVerbatim, suffix, 0))
				if err != nil {
					// The value cannot cross: the consumer's promise rejects with why.
					cv, rej = m.crossErr(err), true
				}
				if rej {
					err = reject(cv)
				} else {
					err = resolve(cv)
				}
				if err != nil {
					panic(err)
				}
			})
			if err = to.wrapErr(e.Bound().What, err); err != nil {
				to.report("settling a cross-mount promise failed", err)
			}
			to.end(e)
			return goja.Undefined()
		})
	}
	if _, err := from.promiseThen(po, settle(false), settle(true)); err != nil {
		_ = reject(m.crossErr(from.wrapErr("a cross-mount promise", err)))
	}
	return to.rt.ToValue(p)
}

// A view is a consumer-side, read-only, live view of a provider object: each read converts
// the current value of the property.
type view struct {
	m    membrane
	obj  *goja.Object
	path *crossPath            // where the consumer reached the object, for errors
	fns  map[string]viewMethod // by key: the wrapper of the function read there last
}

// A viewMethod is the wrapper a view made for the function fn, kept so that reading a
// method twice gives the same function (svc.greet === svc.greet).
type viewMethod struct {
	fn      *goja.Object
	wrapper goja.Value
}

// maxViewMethods bounds the wrappers one view keeps. The cache is by key and holds only
// the function a key held when last read, so a getter that returns a fresh function each
// time costs one entry, not one per read; past this many keys (a proxy that answers every
// name with a function) new keys get a fresh wrapper per read, which nothing keeps.
const maxViewMethods = 256

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
		at := v.path.child(pathKey, key, 0)
		if fo, ok := pv.(*goja.Object); ok {
			if _, isFn := goja.AssertFunction(fo); isFn {
				if c, ok := v.fns[key]; ok && c.fn == fo {
					out = c.wrapper
					return
				}
				out = v.m.cross(newCrossing(v.m.to), fo, v.obj, 0, at)
				v.remember(key, fo, out)
				return
			}
		}
		out = v.m.cross(newCrossing(v.m.to), pv, v.obj, 0, at)
	})
	if err != nil {
		panic(v.m.crossErr(err))
	}
	return out
}

// remember caches wrapper as the view of fn under key, replacing what key held before.
func (v *view) remember(key string, fn *goja.Object, wrapper goja.Value) {
	if _, ok := v.fns[key]; !ok && len(v.fns) >= maxViewMethods {
		return
	}
	if v.fns == nil {
		v.fns = map[string]viewMethod{}
	}
	v.fns[key] = viewMethod{fn: fn, wrapper: wrapper}
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

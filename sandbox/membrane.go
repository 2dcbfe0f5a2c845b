package sandbox

import (
	"context"
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"strconv"
	"sync"

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

// valueIn returns the value as seen from realm to. Lock held (to's).
func (p *Provided) valueIn(to *Realm) goja.Value {
	if p.realm == to {
		return p.value
	}
	m := membrane{from: p.realm, to: to}
	root := &crossPath{key: "ctx." + p.name}
	if p.name == "" {
		root.key = "the value provided by " + p.realm.id
	}
	var x carried
	if err := m.inFrom("reading a provided service", func() { x = m.export(newCrossing(to), p.value, nil, 0, crossAt{parent: root}) }); err != nil {
		to.throw(err)
	}
	return m.land(&x)
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

// A membrane converts values of realm from into realm to, in two steps: export reads a
// value of from into a carried value (inside an entry of from, its engine's lock held),
// land makes the value of to for it (inside an entry of to). Between the two the carried
// value belongs to no runtime: when the realms are of different engines (sessions, see
// the engine's doc), the caller leaves to's engine as a Go call does and takes from's
// only for the export (inFrom), so one goroutine never holds two engines' locks and no
// runtime ever runs without its own.
type membrane struct{ from, to *Realm }

func (m membrane) back() membrane { return membrane{from: m.to, to: m.from} }

// sameEngine reports whether both realms are of one engine, whose lock the caller holds.
func (m membrane) sameEngine() bool { return m.from.engine == m.to.engine }

// inFrom runs f as an entry of the provider's realm (bounded by CallTimeout) and returns
// what it threw, described for the consumer. Called inside an entry of to. When the realms
// are of different engines, inFrom leaves to's engine around the entry as a Go call does
// ([Realm.Unlocked]: another goroutine may enter to meanwhile; the call resumes once they
// are done) and takes from's: f must not touch to's runtime. So two sessions calling each
// other's shared services at once take one lock at a time each and cannot deadlock.
func (m membrane) inFrom(what string, f func()) error {
	if m.sameEngine() {
		return m.from.inEntry(what, f)
	}
	var err error
	m.to.Unlocked(func() {
		l := &m.from.engine.lock
		l.Lock()
		defer l.Unlock()
		err = m.from.inEntry(what, f)
	})
	return err
}

// inEntry runs f as an entry of r bounded by CallTimeout, for a membrane. Lock held (r's).
func (r *Realm) inEntry(what string, f func()) error {
	e, err := r.begin(context.Background(), what, "CallTimeout", r.engine.timeouts.Call)
	if err != nil {
		return fmt.Errorf("the service was provided by %s, which is no longer mounted: %w", r.id, ErrClosed)
	}
	err = r.wrapErr(e.Bound().What, r.try(f))
	r.end(e)
	return err
}

// A crossing is one conversion through the membrane: its budget, and the copies of arrays
// it has made. An array reached twice (a DAG: forty levels of arrays each holding the
// previous one twice) is copied once and the copy shared again, as structured cloning
// does, so the copy is never bigger than what the provider holds; the budget then bounds
// what the provider holds.
type crossing struct {
	bud    conv.Budget
	copies map[*goja.Object]*carriedArray // provider array → its copy
}

func newCrossing(to *Realm) *crossing {
	c := &crossing{bud: *newBudget(to)}
	c.bud.Shares = true
	return c
}

// A carried value is a value of one realm on its way into another: what export read of
// it, holding nothing of the destination's runtime, and of the source's only what the
// destination reaches back through the membrane (functions, views and promises).
type carried struct {
	kind  carriedKind
	prim  goja.Value    // carriedPrim: a primitive, which belongs to no runtime
	arr   *carriedArray // carriedArray
	err   *carriedError // carriedError
	ref   *goja.Object  // carriedView: the provider object; carriedFunc: the function's this, if any
	fn    goja.Callable // carriedFunc
	path  *crossPath    // carriedView, carriedFunc: where the consumer reached it
	promo *bridge       // carriedPromise
}

type carriedKind uint8

const (
	carriedPrim carriedKind = iota
	carriedArrayKind
	carriedErrorKind
	carriedFunc
	carriedView
	carriedPromise
)

// A carriedArray is an array copied element by element. made is its copy in the
// destination, so an array reached twice in one crossing lands once.
type carriedArray struct {
	items []carried
	made  goja.Value
}

// A carriedError is an Error, copied so that the consumer gets a real Error (instanceof
// Error, stack), keeping the Go error the provider's Error was made from, if any.
type carriedError struct {
	name, message, stack string
	goErr                error
}

// export reads v, at path at, as part of crossing c. holder is the object a function was
// read from (its this), or nil. A copy that outgrows the budget, or nests deeper than
// Limits.MaxDepth (a cycle), panics with a crossFailure, which the entry around the
// crossing returns as an error. Inside an entry of m.from.
func (m membrane) export(c *crossing, v goja.Value, holder *goja.Object, depth int, at crossAt) carried {
	o, ok := v.(*goja.Object)
	if !ok {
		switch s := v.(type) {
		case nil, *goja.Symbol:
			return carried{prim: goja.Undefined()} // symbols are per realm
		case goja.String:
			// A string goja imported from Go scans itself on first use: scan it here, under
			// the source's lock, so that both runtimes only ever read it.
			s.Length()
		}
		return carried{prim: v} // primitives belong to no runtime
	}
	if fn, ok := goja.AssertFunction(o); ok {
		return carried{kind: carriedFunc, fn: fn, ref: holder, path: at.path()}
	}
	if p := asPromise(o); p != nil {
		return carried{kind: carriedPromise, promo: m.bridgePromise(o, at.path())}
	}
	switch o.ClassName() {
	case "Array":
		if cp, ok := c.copies[o]; ok {
			return carried{kind: carriedArrayKind, arr: cp}
		}
		path := at.path()
		if depth >= m.to.engine.limits.MaxDepth {
			panic(crossFailure{fmt.Errorf("%s: a value from %s is nested deeper than %d levels (a cycle?); pass a flatter value", path, m.from.id, m.to.engine.limits.MaxDepth)})
		}
		// Before allocating: a sparse array may claim 2^32-1 elements. The path is
		// rendered only for the error.
		n := conv.ArrayLen(o)
		if !c.bud.HasNodes(n) {
			panic(crossFailure{c.bud.NeedNodes(n, path.String())})
		}
		c.bud.Nodes -= int(n)
		cp := &carriedArray{items: make([]carried, n)}
		for i := range cp.items {
			cp.items[i] = m.export(c, o.Get(strconv.Itoa(i)), nil, depth+1, path.child(pathIndex, "", i))
		}
		if c.copies == nil {
			c.copies = map[*goja.Object]*carriedArray{}
		}
		c.copies[o] = cp
		return carried{kind: carriedArrayKind, arr: cp}
	case "Error":
		// Its parts are read without getters, as a thrown value is described (errorParts).
		name, message, stack := m.from.errorParts(o)
		return carried{kind: carriedErrorKind, err: &carriedError{name: name, message: message, stack: stack, goErr: m.from.goError(o)}}
	}
	return carried{kind: carriedView, ref: o, path: at.path()}
}

// land makes the value of m.to for x, which export made. Inside an entry of m.to.
func (m membrane) land(x *carried) goja.Value {
	switch x.kind {
	case carriedFunc:
		this := goja.Value(goja.Undefined())
		if x.ref != nil {
			this = x.ref
		}
		return m.wrapFunc(x.fn, this, x.path)
	case carriedPromise:
		return x.promo.attach()
	case carriedArrayKind:
		if x.arr.made == nil {
			items := make([]any, len(x.arr.items))
			for i := range items {
				items[i] = m.land(&x.arr.items[i])
			}
			x.arr.made = m.to.rt.NewArray(items...)
		}
		return x.arr.made
	case carriedErrorKind:
		ce := x.err
		e := m.to.newError(&causeError{msg: ce.message, err: ce.goErr})
		if ce.name != "Error" {
			_ = e.DefineDataProperty("name", m.to.rt.ToValue(ce.name), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
		if ce.stack != "" {
			_ = e.DefineDataProperty("stack", m.to.rt.ToValue(ce.stack), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
		return e
	case carriedView:
		return m.to.rt.NewDynamicObject(&view{m: m, obj: x.ref, path: x.path})
	}
	return x.prim
}

// A crossFailure is the panic of a copy that cannot be made (too many elements, too deep).
// It is an error, so the entry around the crossing returns it (Realm.try).
type crossFailure struct{ err error }

func (f crossFailure) Error() string { return f.err.Error() }
func (f crossFailure) Unwrap() error { return f.err }

// catchCross runs f, an export, and returns its crossFailure as an error; every other
// panic (a thrown value, an interrupt) passes.
func catchCross(f func()) (err error) {
	defer func() {
		if x := recover(); x != nil {
			cf, ok := x.(crossFailure)
			if !ok {
				panic(x)
			}
			err = cf.err
		}
	}()
	f()
	return nil
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
// realm with this. The arguments of one call cross as one conversion (exported from the
// consumer before it leaves for the provider), the result (or what fn threw) as another.
func (m membrane) wrapFunc(fn goja.Callable, this goja.Value, path *crossPath) goja.Value {
	return m.to.Func("cross-mount call", func(call goja.FunctionCall) goja.Value {
		cc := &crossCall{m: m, fn: fn, this: this, path: path}
		if err := cc.exportArgs(call.Arguments); err != nil {
			panic(m.crossErr(err))
		}
		if err := m.inFrom("a cross-mount call", cc.run); err != nil {
			panic(m.crossErr(err))
		}
		v := m.land(&cc.out)
		if cc.threw {
			panic(v)
		}
		return v
	})
}

// A crossCall is one call through a wrapped function: what crosses each way. One
// allocation holds it all for calls of up to two arguments.
type crossCall struct {
	m     membrane
	fn    goja.Callable
	this  goja.Value
	path  *crossPath
	args  []carried
	buf   [2]carried
	out   carried
	threw bool
}

// exportArgs exports the call's arguments from the consumer, as one crossing, and returns
// the crossFailure of one that cannot cross. Inside an entry of the consumer.
func (cc *crossCall) exportArgs(args []goja.Value) (err error) {
	defer func() {
		if x := recover(); x != nil {
			cf, ok := x.(crossFailure)
			if !ok {
				panic(x)
			}
			err = cf.err
		}
	}()
	cc.args = cc.buf[:0]
	back := cc.m.back()
	c := newCrossing(cc.m.from)
	for i, a := range args {
		cc.args = append(cc.args, back.export(c, a, nil, 0, cc.path.child(pathVerbatim, "(…) argument "+strconv.Itoa(i), 0)))
	}
	return nil
}

// run lands the arguments in the provider, calls fn and exports its result, or what it
// threw. Inside an entry of the provider.
func (cc *crossCall) run() {
	m, back := cc.m, cc.m.back()
	var buf [2]goja.Value
	in := buf[:0]
	for i := range cc.args {
		in = append(in, back.land(&cc.args[i]))
	}
	v, err := cc.fn(cc.this, in...)
	var ex *goja.Exception
	if errors.As(err, &ex) {
		// What the provider threw crosses like a value: the consumer can catch it.
		cc.out, cc.threw = m.export(newCrossing(m.to), ex.Value(), nil, 0, cc.path.child(pathVerbatim, "(…) threw", 0)), true
		return
	}
	if err != nil {
		panic(err) // uncatchable: a time bound, a stack overflow
	}
	cc.out = m.export(newCrossing(m.to), v, nil, 0, cc.path.child(pathVerbatim, "()", 0))
}

// A bridge carries the settlement of a provider's promise to the consumer's promise made
// for it. The provider's handlers export the value (under the provider's lock); land makes
// the consumer's promise (under the consumer's); whichever comes second settles it. The
// mutex is the only thing both engines touch.
type bridge struct {
	m    membrane
	path *crossPath

	mu sync.Mutex
	// Set once by settle, in a job of the provider.
	settled, rejected bool
	val               carried
	failed            error // the value cannot cross: the consumer's promise rejects with why
	// Set once by attach.
	resolve, reject func(any) error
}

// bridgePromise watches the provider's promise po, read at path, for the consumer. Inside
// an entry of the provider.
func (m membrane) bridgePromise(po *goja.Object, path *crossPath) *bridge {
	b := &bridge{m: m, path: path}
	from := m.from
	handler := func(rejected bool) goja.Value {
		return from.rt.ToValue(func(call goja.FunctionCall) goja.Value {
			suffix := " (resolved)"
			if rejected {
				suffix = " (rejected)"
			}
			var x carried
			err := catchCross(func() { x = m.export(newCrossing(m.to), call.Argument(0), nil, 0, path.child(pathVerbatim, suffix, 0)) })
			b.settle(x, rejected, err)
			return goja.Undefined()
		})
	}
	if _, err := from.promiseThen(po, handler(false), handler(true)); err != nil {
		b.settle(carried{}, true, from.wrapErr("a cross-mount promise", err))
	}
	return b
}

// settle records the provider's outcome and, when the consumer's promise exists, settles
// it. In a job of the provider (its lock held).
func (b *bridge) settle(x carried, rejected bool, failed error) {
	b.mu.Lock()
	if b.settled {
		b.mu.Unlock()
		return
	}
	b.settled, b.val, b.rejected, b.failed = true, x, rejected, failed
	attached := b.resolve != nil
	b.mu.Unlock()
	if !attached {
		return // attach settles it
	}
	if b.m.sameEngine() {
		b.settleIn()
		return
	}
	// Enter the consumer as a Go callee does: leave the provider's engine, take the
	// consumer's.
	b.m.from.Unlocked(func() {
		l := &b.m.to.engine.lock
		l.Lock()
		defer l.Unlock()
		b.settleIn()
	})
}

// attach makes the consumer's promise, settled at once when the provider's already is.
// Inside an entry of the consumer.
func (b *bridge) attach() goja.Value {
	to := b.m.to
	p, resolve, reject := to.rt.NewPromise()
	b.mu.Lock()
	b.resolve, b.reject = resolve, reject
	settled := b.settled
	b.mu.Unlock()
	if settled {
		if err := to.try(b.resolveNow); err != nil {
			to.report("settling a cross-mount promise failed", to.wrapErr("settling a cross-mount promise", err))
		}
	}
	return to.rt.ToValue(p)
}

// settleIn settles the consumer's promise in an entry of its own. Lock held (the
// consumer's).
func (b *bridge) settleIn() {
	to := b.m.to
	e, err := to.begin(context.Background(), "settling a cross-mount promise", "CallTimeout", to.engine.timeouts.Call)
	if err != nil {
		return // the consumer is gone
	}
	if err = to.wrapErr(e.Bound().What, to.try(b.resolveNow)); err != nil {
		to.report("settling a cross-mount promise failed", err)
	}
	to.end(e)
}

// resolveNow settles the consumer's promise with what settle recorded. Inside an entry of
// the consumer.
func (b *bridge) resolveNow() {
	var v goja.Value
	rejected := b.rejected
	if b.failed != nil {
		v, rejected = b.m.crossErr(b.failed), true
	} else {
		v = b.m.land(&b.val)
	}
	var err error
	if rejected {
		err = b.reject(v)
	} else {
		err = b.resolve(v)
	}
	if err != nil {
		panic(err)
	}
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
	r := &viewRead{v: v, key: key}
	if err := v.m.inFrom("reading a provided service", r.read); err != nil {
		panic(v.m.crossErr(err))
	}
	switch {
	case !r.found:
		return nil
	case r.fnObj == nil:
		return v.m.land(&r.out)
	}
	// Compared by identity only: fnObj is the provider's, never touched here.
	if c, ok := v.fns[key]; ok && c.fn == r.fnObj {
		return c.wrapper
	}
	w := v.m.wrapFunc(r.fn, v.obj, v.path.child(pathKey, key, 0).path())
	v.remember(key, r.fnObj, w)
	return w
}

// A viewRead is one read of a view's property, exported from the provider: a function is
// wrapped by the consumer unless the view's cache has it.
type viewRead struct {
	v     *view
	key   string
	out   carried // what is not a function
	found bool
	fnObj *goja.Object // a function read, for the view's cache
	fn    goja.Callable
}

// read reads the property. Inside an entry of the provider.
func (r *viewRead) read() {
	v := r.v
	pv, ok := v.provider(r.key)
	if !ok {
		return // not there: the consumer's prototype chain answers
	}
	r.found = true
	if fo, ok := pv.(*goja.Object); ok {
		if fn, isFn := goja.AssertFunction(fo); isFn {
			r.fnObj, r.fn = fo, fn
			return
		}
	}
	r.out = v.m.export(newCrossing(v.m.to), pv, v.obj, 0, v.path.child(pathKey, r.key, 0))
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

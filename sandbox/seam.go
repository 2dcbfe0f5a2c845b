package sandbox

import (
	"context"
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/dop251/goja"
)

// A SeamAdapter lets mount code implement an interface service (an abstract seam) in
// JavaScript. ctx.provide(key, obj) checks obj against the interface — every catalogued
// method must be a function — and provides, in the kit, a Go value implementing the
// interface whose methods call obj's, so Go code and Go plugins consume it through the
// ordinary Service.Get and Inject. Each call is bounded by CallTimeout (and by the
// caller's context for a context-taking method), its arguments converted Go→JavaScript and
// its result JavaScript→Go with the path in errors; a returned Promise is awaited. The
// value is an effect of the providing activation: once it ends every call fails with an
// error wrapping ErrClosed.
//
// The generator emits one per interface service (see NewSeamAdapter); a Facade lists them
// by key in Seams.
type SeamAdapter struct {
	iface   string // the interface, e.g. "agent.FileSystem"
	methods []SeamMethod
	hidden  []string // interface methods the façade leaves out: JavaScript cannot implement them
	build   func(*Seam) any
}

// A SeamMethod is one catalogued method of an interface service, as JavaScript implements
// it.
type SeamMethod struct {
	Go        string // the Go name, e.g. "ReadFile"
	JS        string // the JavaScript name, e.g. "readFile"
	Signature string // the JavaScript signature, e.g. "async readFile(path: string): Promise<string>"
}

// NewSeamAdapter describes the interface T, whose catalogued methods are methods (in the
// order generated code numbers them for Seam.Call), and build, which makes the Go value
// that calls a JavaScript implementation through a *Seam. Methods of T that methods does
// not list (marked //cordis:internal, or unexported) cannot be written in JavaScript:
// ctx.provide then refuses the key, naming them. It panics when T is not an interface
// type or methods names a method T lacks: that is a stale or hand-edited façade.
func NewSeamAdapter[T any](methods []SeamMethod, build func(*Seam) T) *SeamAdapter {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Interface {
		panic(fmt.Sprintf("sandbox: NewSeamAdapter[%s]: not an interface type; only an abstract seam can be implemented in JavaScript", t))
	}
	a := &SeamAdapter{iface: t.String(), methods: methods, build: func(s *Seam) any { return build(s) }}
	for _, m := range methods {
		if _, ok := t.MethodByName(m.Go); !ok {
			panic(fmt.Sprintf("sandbox: NewSeamAdapter[%s]: the interface has no method %s (regenerate the façade)", t, m.Go))
		}
	}
	for i := range t.NumMethod() {
		name := t.Method(i).Name
		if !slices.ContainsFunc(methods, func(m SeamMethod) bool { return m.Go == name }) {
			a.hidden = append(a.hidden, name)
		}
	}
	return a
}

// Interface returns the Go interface the adapter implements, e.g. "agent.FileSystem".
func (a *SeamAdapter) Interface() string { return a.iface }

// Methods returns the catalogued methods a JavaScript implementation must have.
func (a *SeamAdapter) Methods() []SeamMethod { return slices.Clone(a.methods) }

// A Seam is one JavaScript implementation of an interface service: the object a mount
// provided, bound to its realm. The Go value generated code builds around it calls Call
// for each method. It is safe for concurrent use.
type Seam struct {
	adapter *SeamAdapter
	key     string
	mount   string
	logger  *slog.Logger
	onError func(mount string, err error)
	live    atomic.Pointer[seamLive] // nil once the providing activation has ended
}

// seamLive is what a live Seam reaches: dropped as a whole when it ends, so a Go value
// that outlives the mount does not keep its realm reachable.
type seamLive struct {
	r   *Realm
	fns []goja.Callable // by method index, bound to the provided object
}

// newSeam checks v against the adapter's interface and binds it. Lock held: reading the
// methods may run the mount's getters; what they throw reaches the mount's code.
func (a *SeamAdapter) newSeam(r *Realm, key string, v goja.Value) (*Seam, error) {
	if len(a.hidden) > 0 {
		return nil, fmt.Errorf("%q cannot be implemented in JavaScript: its Go interface %s has methods the façade leaves out (%s), "+
			"which only Go code can implement — provide it from a Go plugin, or provide your object under another name",
			key, a.iface, strings.Join(a.hidden, ", "))
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, a.shapeError(key, "got "+conv.TypeName(v), nil)
	}
	fns := make([]goja.Callable, len(a.methods))
	var missing []string
	for i, m := range a.methods {
		fn, ok := goja.AssertFunction(obj.Get(m.JS))
		if !ok {
			missing = append(missing, m.JS)
			continue
		}
		fns[i] = func(_ goja.Value, args ...goja.Value) (goja.Value, error) { return fn(obj, args...) }
	}
	if len(missing) > 0 {
		return nil, a.shapeError(key, "missing or not a function: "+strings.Join(missing, ", "), missing)
	}
	s := &Seam{adapter: a, key: key, mount: r.id, logger: r.logger, onError: r.loop.onError}
	s.live.Store(&seamLive{r: r, fns: fns})
	return s, nil
}

// shapeError teaches the interface an object must implement.
func (a *SeamAdapter) shapeError(key, what string, missing []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "the value provided as %q must implement the Go interface %s — an object with every method below as a function (%s):", key, a.iface, what)
	for _, m := range a.methods {
		mark := ""
		if slices.Contains(missing, m.JS) {
			mark = "   ← missing"
		}
		fmt.Fprintf(&b, "\n    %s%s", m.Signature, mark)
	}
	b.WriteString("\nan async method may return a Promise (or be an async function); a sync one must return its value directly. " +
		"cordis_inspect what:\"api\" name:\"" + key + "\" shows each method's documentation")
	return &seamShapeError{msg: b.String()}
}

// A seamShapeError is a provided object that does not fit its interface; thrown into the
// mount's JavaScript it is a TypeError.
type seamShapeError struct{ msg string }

func (e *seamShapeError) Error() string { return e.msg }

// value is the Go value standing for the implementation: what the kit's store holds.
func (s *Seam) value() any { return s.adapter.build(s) }

// end drops the implementation: later calls fail with ErrClosed.
func (s *Seam) end() { s.live.Store(nil) }

// Key returns the service key the implementation is provided under.
func (s *Seam) Key() string { return s.key }

// Mount returns the id of the providing mount.
func (s *Seam) Mount() string { return s.mount }

// Call calls method number i (an index into the adapter's methods) of the JavaScript
// implementation from Go, on any goroutine that does not hold the lock. args, if not nil,
// builds the arguments and conv, if not nil, reads the result (a returned Promise is
// awaited first); both run under the lock with the implementation's realm, and what they
// throw (a conversion error naming its path) is the call's error. ctx cancels the call;
// the call and the wait for a promise are bounded by CallTimeout. Errors name the method
// and the mount: a JavaScript throw or rejection (*JSError), a time bound, or — once the
// providing activation has ended — an error wrapping ErrClosed.
//
// A sync Go method must not be implemented by awaiting JavaScript of its caller's own
// realm: that realm cannot run its promise jobs until the call returns (see Deliver).
func (s *Seam) Call(ctx context.Context, i int, args func(r *Realm) []goja.Value, conv func(r *Realm, v goja.Value) error) error {
	live := s.live.Load()
	if live == nil {
		return s.gone(i, ErrClosed)
	}
	r := live.r
	var a func() []goja.Value
	if args != nil {
		a = func() []goja.Value { return args(r) }
	}
	// A non-nil conv: the result is awaited even when the realm is busy in an outer call.
	c := func(goja.Value) error { return nil }
	if conv != nil {
		c = func(v goja.Value) error { return conv(r, v) }
	}
	if ctx == nil {
		ctx = context.Background()
	}
	err := r.deliver(ctx, "a call to "+s.method(i)+" (its JavaScript implementation)", live.fns[i], a, c)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrClosed):
		return s.gone(i, err)
	}
	// err names the mount already.
	return fmt.Errorf("%s, implemented in JavaScript: %w%s", s.method(i), err, unsettledHint(err))
}

// unsettledHint explains a promise of the implementation that did not settle in time:
// usually its mount was itself inside a call waiting for this one, so its promise jobs
// could not run.
func unsettledHint(err error) string {
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.HasSuffix(te.What, "(its promise did not settle)") {
		return ""
	}
	return " — if the method awaits, note that its promise cannot settle while its own mount is inside a call that waits " +
		"for this one (its mount reached a sync method through Go, or a Go plugin loaded while the mount ran ctx.provide " +
		"outside apply): return the value without awaiting, or provide the service in apply"
}

// method names method i as JavaScript calls it ("fs.readFile").
func (s *Seam) method(i int) string { return s.key + "." + s.adapter.methods[i].JS }

func (s *Seam) gone(i int, err error) error {
	return fmt.Errorf("%s: the JavaScript implementation of service %q is gone — mount %s provided it, and it was unmounted "+
		"(or its plugin unloaded), which removed the service; get the service again (Service.Get, or Inject it) to reach its current provider: %w",
		s.method(i), s.key, s.mount, err)
}

// Fail reports the error of a call to method i whose Go signature has no error result to
// return it in (the method then returns its zero values): it is logged with the mount id
// and passed to Options.OnError.
func (s *Seam) Fail(i int, err error) {
	s.logger.Error("sandbox: a call to a JavaScript service implementation failed", "method", s.method(i), "err", err)
	if s.onError != nil {
		s.onError(s.mount, err)
	}
}

// Disposer converts a JavaScript function that a method of the implementation returned
// into the Go func() its signature promises: calling it calls the JavaScript function
// (emit semantics: bounded, its result ignored, a failure logged). undefined or null
// yields a func that does nothing, so Go never calls a nil func; another value throws a
// TypeError naming path. Once the implementation is gone the func does nothing. Lock held.
func (s *Seam) Disposer(r *Realm, v goja.Value, path string) func() {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return func() {}
	}
	fn, ok := goja.AssertFunction(v)
	if !ok {
		r.Throw(&conv.ArgError{Param: path, Want: "a function (a disposer) or undefined", Got: conv.TypeName(v)})
	}
	return func() {
		if s.live.Load() == nil {
			return // the implementation and what it set up are gone
		}
		err := r.deliver(context.Background(), "a disposer returned by "+path, fn, nil, nil)
		if err != nil && !errors.Is(err, ErrClosed) {
			s.logger.Warn("sandbox: a disposer of a JavaScript service implementation failed", "disposer", path, "err", err)
		}
	}
}

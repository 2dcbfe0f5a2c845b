package sandbox

import (
	"context"
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/cordiskit/cordiskit/sandbox/internal/link"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/dop251/goja"
)

// A seam is one JavaScript implementation of an interface service (see [Facade].Seams):
// the object a mount provided, bound to its realm. The Go value generated code builds
// around it calls it through sandbox/bind's Seam, which holds it opaquely and reaches
// call, fail and disposer through sandbox/internal/link. It is safe for concurrent use.
type seam struct {
	adapter *link.SeamAdapter
	key     string
	mount   string
	logger  *slog.Logger
	onError func(mount string, err error)
	live    atomic.Pointer[seamLive] // nil once the providing activation has ended
}

// seamLive is what a live seam reaches: dropped as a whole when it ends, so a Go value
// that outlives the mount does not keep its realm reachable.
type seamLive struct {
	r   *Realm
	fns []goja.Callable // by method index, bound to the provided object
}

// newSeam checks v against the interface adapter a describes and binds it. Lock held:
// reading the methods may run the mount's getters; what they throw reaches the mount's
// code.
func newSeam(a *link.SeamAdapter, r *Realm, key string, v goja.Value) (*seam, error) {
	if len(a.Hidden) > 0 {
		return nil, fmt.Errorf("%q cannot be implemented in JavaScript: its Go interface %s has methods the façade leaves out (%s), "+
			"which only Go code can implement — provide it from a Go plugin, or provide your object under another name",
			key, a.Iface, strings.Join(a.Hidden, ", "))
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, shapeError(a, key, "got "+conv.TypeName(v), nil)
	}
	fns := make([]goja.Callable, len(a.Methods))
	var missing []string
	for i, m := range a.Methods {
		fn, ok := goja.AssertFunction(obj.Get(m.JS))
		if !ok {
			missing = append(missing, m.JS)
			continue
		}
		fns[i] = func(_ goja.Value, args ...goja.Value) (goja.Value, error) { return fn(obj, args...) }
	}
	if len(missing) > 0 {
		return nil, shapeError(a, key, "missing or not a function: "+strings.Join(missing, ", "), missing)
	}
	s := &seam{adapter: a, key: key, mount: r.id, logger: r.logger, onError: r.engine.onError}
	s.live.Store(&seamLive{r: r, fns: fns})
	return s, nil
}

// shapeError teaches the interface an object must implement.
func shapeError(a *link.SeamAdapter, key, what string, missing []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "the value provided as %q must implement the Go interface %s — an object with every method below as a function (%s):", key, a.Iface, what)
	for _, m := range a.Methods {
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
func (s *seam) value() any { return s.adapter.Build(s, s.key, s.mount) }

// end drops the implementation: later calls fail with ErrClosed.
func (s *seam) end() { s.live.Store(nil) }

// call calls method number i (an index into the adapter's methods) of the JavaScript
// implementation from Go, on any goroutine that does not hold the lock. args, if not nil,
// builds the arguments and conv, if not nil, reads the result (a returned Promise is
// awaited first); both run under the lock with the implementation's realm, and what they
// throw (a conversion error naming its path) is the call's error. ctx cancels the call;
// the call and the wait for a promise are bounded by CallTimeout. Errors name the method
// and the mount: a JavaScript throw or rejection (*JSError), a time bound, or — once the
// providing activation has ended — an error wrapping ErrClosed.
//
// A sync Go method must not be implemented by awaiting JavaScript of its caller's own
// realm: that realm cannot run its promise jobs until the call returns (see [Realm.Deliver]).
// It is sandbox/bind's Seam.Call.
func (s *seam) call(ctx context.Context, i int, args func(r *Realm) []goja.Value, conv func(r *Realm, v goja.Value) error) error {
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
func (s *seam) method(i int) string { return s.key + "." + s.adapter.Methods[i].JS }

func (s *seam) gone(i int, err error) error {
	return fmt.Errorf("%s: the JavaScript implementation of service %q is gone — mount %s provided it, and it was unmounted "+
		"(or its plugin unloaded), which removed the service; get the service again (Service.Get, or Inject it) to reach its current provider: %w",
		s.method(i), s.key, s.mount, err)
}

// fail reports the error of a call to method i whose Go signature has no error result to
// return it in (the method then returns its zero values): it is logged with the mount id
// and passed to Options.OnError.
func (s *seam) fail(i int, err error) {
	s.logger.Error("sandbox: a call to a JavaScript service implementation failed", "method", s.method(i), "err", err)
	if s.onError != nil {
		s.onError(s.mount, err)
	}
}

// disposer converts a JavaScript function that a method of the implementation returned
// into the Go func() its signature promises: calling it calls the JavaScript function
// (emit semantics: bounded, its result ignored, a failure logged). undefined or null
// yields a func that does nothing, so Go never calls a nil func; another value throws a
// TypeError naming path. Once the implementation is gone the func does nothing. Lock held.
func (s *seam) disposer(r *Realm, v goja.Value, path string) func() {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return func() {}
	}
	fn, ok := goja.AssertFunction(v)
	if !ok {
		r.throw(&conv.ArgError{Param: path, Want: "a function (a disposer) or undefined", Got: conv.TypeName(v)})
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

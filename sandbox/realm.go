package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/cordiskit/cordiskit/sandbox/internal/engine"
	"github.com/dop251/goja"
)

// A Realm is one mount's goja runtime: its own globals and prototypes, entered under its
// session's engine's lock and bounded in time. A binding (generated, or written by hand following
// sandbox/bind) and a runtime's own globals ([RunOptions].Globals) receive it to make
// native functions, call Go and call back into JavaScript.
//
// Methods documented "lock held" are for native functions (JavaScript is calling Go);
// Deliver and Do are for Go code on any goroutine that does not hold the lock. No method
// hands out the goja runtime: a binding builds values with sandbox/bind, and Go code
// outside one runs a closure with the runtime through Do.
type Realm struct {
	engine *sessionEngine // its session's engine, for its whole life
	id     string
	rt     *goja.Runtime
	logger *slog.Logger
	kctx   atomic.Pointer[kit.Context]

	core engine.Realm // the entries in progress and the async Go calls in flight

	// Guarded by the lock.
	closed   bool
	rejected []*goja.Promise // rejected with no handler yet (nil once handled); reported when depth drops to 0
	// rejectedAt indexes rejected, so adding a handler to one of many is O(1).
	rejectedAt map[*goja.Promise]int
	// Unhandled rejections reported, counted past Limits.MaxRejectionReports, and counted
	// as of the last summary line (see flushRejections).
	reports, unreported, summarized int

	promiseThen goja.Callable // the intrinsic Promise.prototype.then
	ownDesc     goja.Callable // the intrinsic Reflect.getOwnPropertyDescriptor; lazily (see ownDescriptor)
	objectProto *goja.Object  // the intrinsic Object.prototype; lazily (see protos)
	arrayProto  *goja.Object  // the intrinsic Array.prototype; lazily (see protos)

	// goErrs maps the JS Errors newError made to the Go errors they describe, so a *JSError
	// for one of them unwraps to its Go error. Keys are weak: an Error JavaScript dropped
	// drops its entry. Never reachable from JavaScript. Nil once the realm is closed.
	errMu      sync.Mutex
	goErrs     map[weak.Pointer[goja.Object]]error
	intrinsics *intrinsics // lazily captured constructors (TextEncoder needs Uint8Array)

	globals   sandboxGlobals // the global object's prototype (see installGlobals)
	compilers *compilerGuard // the measuring eval and Function constructors
}

// openRealm creates the realm of mount id in session's engine (made on first use; see
// Sandbox.acquire). Close it with shut. Lock not held.
func (sb *Sandbox) openRealm(id, session string) (*Realm, error) {
	se, err := sb.acquire(session)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	se.lock.Lock()
	if se.lock.Closed() { // the sandbox closed meanwhile
		se.lock.Unlock()
		se.release()
		return nil, fmt.Errorf("%s: %w", id, ErrClosed)
	}
	r := se.newRealm(id)
	se.lock.Unlock()
	return r, nil
}

// session is the session a run's realm belongs to.
func (o *RunOptions) session() string {
	if o == nil {
		return ""
	}
	return o.Session
}

// newRealm creates the runtime for mount id and installs the globals. Lock held (se's).
func (se *sessionEngine) newRealm(id string) *Realm {
	r := &Realm{engine: se, id: id, rt: goja.New()}
	r.core.Init(&se.lock, r.rt, id)
	r.logger = se.logger.With("mount", id)
	r.rt.SetMaxCallStackSize(se.limits.MaxCallStackSize)
	r.compilers = guardParser(r.rt, se.limits)
	r.rt.SetPromiseRejectionTracker(r.trackRejection)
	r.installGlobals()
	return r
}

// ID returns the mount id the realm belongs to ("dyn-3").
func (r *Realm) ID() string { return r.id }

// Do runs fn with the realm's runtime, in an entry of its own: the one way to touch the
// runtime from outside a binding, in the manner of an event loop of goja_nodejs, whose
// RunOnLoop hands the runtime to a closure that runs on the loop. Inside a binding — a
// native function, a service binder, an event adapter's args or conv func, a builder of
// [RunOptions].Globals — the lock is already held: build values there with sandbox/bind
// (its Value, PlainObject and the rest), never with Do.
//
// Do takes the engine's lock, as [Realm.Deliver] does, so it is for a goroutine that does
// not hold it: any goroutine outside a native function (a native function's Go call out in
// [Realm.Unlocked] is outside). It waits while another goroutine runs JavaScript of the
// engine, never runs beside it. Called with the lock held — from a binding, or from fn
// itself — it would wait for itself: the lock is a plain mutex and knows no goroutine, so
// that is the caller's to avoid, as with Deliver. What fn runs is bounded by CallTimeout and ctx: JavaScript
// it calls is interrupted at the bound. fn must keep neither rt nor any value of the
// realm past its return: they are the engine's, and fn holds it only while it runs.
//
// Do returns fn's error; what fn throws — a JavaScript exception (a *JSError) or a Go
// panic — is returned as the error too, and the lock is released either way. A closed
// realm is ErrClosed, fn not called.
func (r *Realm) Do(ctx context.Context, fn func(rt *goja.Runtime) error) error {
	if ctx == nil || fn == nil {
		return fmt.Errorf("%s: Realm.Do needs a context and a func (use context.Background() when there is no other)", r.id)
	}
	b := bound{What: "Realm.Do", Name: "CallTimeout", Limit: r.engine.timeouts.Call}
	return r.call(ctx, b, func() (goja.Value, error) { return nil, fn(r.rt) }, nil)
}

// runtime returns the realm's goja runtime for sandbox/bind (see link.go): a binding runs
// with the lock held. Lock held.
func (r *Realm) runtime() *goja.Runtime { return r.rt }

// Context returns the mount's kit context: the one its plugin's apply received. It is nil
// before the mount is applied. Bindings pass it for *kit.Context parameters.
func (r *Realm) Context() *kit.Context { return r.kctx.Load() }

// Logger returns the logger tagged with the mount id.
func (r *Realm) Logger() *slog.Logger { return r.logger }

// shut closes the realm (see close) and, the first time, releases its hold on its engine,
// which retires with its last realm. It returns a channel closed when the realm's last
// async Go call has settled, or nil when none is in flight. Lock not held.
func (r *Realm) shut() <-chan struct{} {
	l := &r.engine.lock
	l.Lock()
	first := !r.closed
	r.close()
	idle := r.core.Idle()
	l.Unlock()
	if first {
		r.engine.release()
	}
	return idle
}

// close marks the realm closed and cancels its async calls. Lock held.
func (r *Realm) close() {
	if !r.closed {
		r.summarizeRejections()
	}
	r.closed = true
	r.core.Cancel()
	r.errMu.Lock()
	r.goErrs = nil
	r.errMu.Unlock()
}

// Func wraps a native implementation as a JS function value. method ("fs.readFile") names it
// in the error a Go panic inside fn becomes. Lock held.
func (r *Realm) Func(method string, fn func(call goja.FunctionCall) goja.Value) goja.Value {
	return r.rt.ToValue(func(call goja.FunctionCall) goja.Value {
		defer r.rethrowGoPanic(method)
		return fn(call)
	})
}

// rethrowGoPanic turns a Go panic in a native function into a JS Error; JavaScript
// exceptions and goja's uncatchable errors pass through.
func (r *Realm) rethrowGoPanic(method string) {
	if x := recover(); x != nil {
		r.rethrow(method, x)
	}
}

// rethrow panics again with x, a value recovered in the native function named method: as
// it is for JavaScript exceptions and goja's uncatchable errors, as a JS Error for a Go
// panic.
func (r *Realm) rethrow(method string, x any) {
	switch x.(type) {
	case goja.Value, *goja.Exception, *goja.InterruptedError, *goja.StackOverflowError:
		panic(x)
	}
	panic(r.newError(fmt.Errorf("%s: internal error (Go panic): %s", method, r.panicText(x))))
}

// Unlocked runs a synchronous Go call with the lock released, so the Go side may emit to
// JavaScript listeners — even of this realm — without deadlock. Lock held on entry and on
// return. A Go panic in fn goes on with the lock retaken: inside a native function made
// with [Realm.Func] it becomes a JavaScript Error naming the method.
//
// On return Unlocked waits until every call that began, while it was out, in a realm this
// goroutine has frames in has finished: a realm's calls nest strictly, whichever
// goroutines make them.
func (r *Realm) Unlocked(fn func()) { r.engine.lock.Unlocked(fn) }

// promise returns a Promise. call runs on a goroutine the sandbox owns, off the lock, with
// a context bounded by CallTimeout and cancelled when the mount goes away; the returned
// settle func runs under the lock to build the resolved value (nil settle means
// undefined), or the error rejects the promise. It is sandbox/bind's AsyncN. Lock held.
func (r *Realm) promise(call func(ctx context.Context) (settle func() goja.Value, err error)) goja.Value {
	return r.async(r.engine.timeouts.Call, call)
}

// async is promise with an explicit bound on call's context (0: only the mount's lifetime).
func (r *Realm) async(limit time.Duration, call func(ctx context.Context) (func() goja.Value, error)) goja.Value {
	p, resolve, reject := r.rt.NewPromise()
	if r.closed {
		_ = reject(r.newError(fmt.Errorf("%s: %w", r.id, ErrClosed)))
		return r.rt.ToValue(p)
	}
	var (
		settle func() goja.Value
		err    error
	)
	started := r.core.Go(limit, func(ctx context.Context) {
		settle, err = callAsync(ctx, call)
	}, func() {
		r.settle(settle, err, resolve, reject)
	})
	if !started {
		_ = reject(r.newError(fmt.Errorf("%s: %w", r.id, ErrClosed)))
	}
	return r.rt.ToValue(p)
}

// settle resolves (with what settle builds) or rejects (with err) the promise of an async
// Go call, in an entry of its own. Lock held.
func (r *Realm) settle(settle func() goja.Value, err error, resolve, reject func(any) error) {
	e, berr := r.begin(context.Background(), "settling an async Go call", "CallTimeout", r.engine.timeouts.Call)
	if berr != nil {
		return // the mount is gone; nobody can observe the promise
	}
	defer r.end(e)
	var jerr error
	if err != nil {
		jerr = r.tryErr(func() error { return reject(r.newError(err)) })
	} else {
		jerr = r.tryErr(func() error {
			v := goja.Undefined()
			if settle != nil {
				v = settle()
			}
			return resolve(v)
		})
		if jerr != nil {
			// settle threw (a conversion error) or panicked: the promise rejects with
			// that instead of leaving its awaiter to wait out the bound.
			cause := r.rejection(e, jerr)
			_ = r.tryErr(func() error { return reject(cause) })
		}
	}
	if jerr != nil {
		r.logger.Warn("sandbox: settling an async Go call failed", "err", r.wrapErr(e.Bound().What, jerr))
	}
}

// rejection is the value a promise rejects with for err, which a settle func returned:
// what JavaScript threw, or an Error describing the Go side. Lock held.
func (r *Realm) rejection(e *entry, err error) any {
	if ex, ok := err.(*goja.Exception); ok {
		return ex.Value()
	}
	return r.newError(r.wrapErr(e.Bound().What, err))
}

func callAsync(ctx context.Context, call func(context.Context) (func() goja.Value, error)) (settle func() goja.Value, err error) {
	defer func() {
		if x := recover(); x != nil {
			//lint:ignore ST1005 Go is a proper noun
			err = fmt.Errorf("Go panic: %s", panicTextUnlocked(x))
		}
	}()
	return call(ctx)
}

// throw raises err as a JS exception: a TypeError when err is (or wraps) the error of a
// value of the wrong type (from [ToJSON], or an argument reader of sandbox/bind), an
// Error otherwise. It does not return. Lock held.
func (r *Realm) throw(err error) {
	if ae := (*conv.ArgError)(nil); errors.As(err, &ae) {
		o := r.rt.NewTypeError(err.Error())
		r.rememberGoError(o, err)
		panic(o)
	}
	panic(r.newError(err))
}

// throwf throws a TypeError with a formatted message.
func (r *Realm) throwf(format string, args ...any) {
	panic(r.rt.NewTypeError(fmt.Sprintf(format, args...)))
}

// newError builds a plain JS Error carrying err's message (no reflected Go value). The
// realm remembers err for it (on the Go side only), so when the Error comes back as a
// thrown value or a rejection the *JSError unwraps to err.
func (r *Realm) newError(err error) *goja.Object {
	o := r.rt.NewGoError(err)
	_ = o.Delete("value")
	_ = o.DefineDataProperty("name", r.rt.ToValue("Error"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	r.rememberGoError(o, err)
	return o
}

// rememberGoError records that the JS value o was made from err.
func (r *Realm) rememberGoError(o *goja.Object, err error) {
	if err == nil {
		return
	}
	k := weak.Make(o)
	r.errMu.Lock()
	if r.closed {
		r.errMu.Unlock()
		return
	}
	if r.goErrs == nil {
		r.goErrs = map[weak.Pointer[goja.Object]]error{}
	}
	r.goErrs[k] = err
	r.errMu.Unlock()
	runtime.AddCleanup(o, r.forgetGoError, k)
}

func (r *Realm) forgetGoError(k weak.Pointer[goja.Object]) {
	r.errMu.Lock()
	delete(r.goErrs, k)
	r.errMu.Unlock()
}

// goError returns the Go error the JS value v was made from by newError (or throw) in this
// realm, or nil.
func (r *Realm) goError(v goja.Value) error {
	o, ok := v.(*goja.Object)
	if !ok {
		return nil
	}
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if len(r.goErrs) == 0 {
		return nil
	}
	return r.goErrs[weak.Make(o)]
}

// Deliver enters the realm from Go (any goroutine not holding the lock) for an awaited
// dispatch — a parallel, serial, bail or waterfall listener: it takes the lock, bounds the
// entry by CallTimeout (and ctx), builds args, calls fn and — when the JS result is a
// Promise — waits off the lock for it to settle (same bound). conv, if not nil, reads the
// settled result under the lock. Errors: a JS throw or rejection (*JSError), a time bound
// (errors.Is(err, context.DeadlineExceeded)), a closed mount (ErrClosed).
//
// Deliver always waits, bounded. So a sync Go method must not await JavaScript of its
// caller's realm (the realm cannot run its promise jobs before the call returns: it would
// wait for itself until CallTimeout) — make it context-taking (async) instead. An emit-mode
// event or a callback whose result nobody reads is delivered fire and forget (sandbox/bind's
// OnEmit), which never waits.
func (r *Realm) Deliver(ctx context.Context, fn goja.Callable, args func() []goja.Value, conv func(res goja.Value) error) error {
	return r.deliverBound(ctx, bound{What: "a listener", Name: "CallTimeout", Limit: r.engine.timeouts.Call, WaitNested: true}, fn, args, conv)
}

// deliverEmit enters the realm from Go (any goroutine not holding the lock) for an
// emit-mode event, or a callback whose result nobody reads: fire and forget. It takes the
// lock, bounds the entry by CallTimeout, builds args and calls fn, and returns when fn
// does: it never waits for a promise fn returns, whether or not the realm is busy. A
// failure is reported here, never returned — a throw, the bound, or the rejection of that
// promise when it comes is logged with the mount id and passed to Options.OnError, once
// (rejections within Limits.MaxRejectionReports); a delivery to a closed mount is
// dropped. what names fn in the reports: `a listener of "agent/error"`.
func (r *Realm) deliverEmit(what string, fn goja.Callable, args func() []goja.Value) {
	err := r.deliverBound(context.Background(), bound{What: what, Name: "CallTimeout", Limit: r.engine.timeouts.Call, Emit: true}, fn, args, nil)
	if err == nil || errors.Is(err, ErrClosed) {
		return
	}
	if _, ok := err.(*JSError); ok {
		err = fmt.Errorf("%s threw: %w", what, err)
	}
	r.logger.Error("sandbox: "+what+" failed", "err", err)
	r.tellHost(err)
}

// deliver is the sandbox's own delivery (a timer callback, a tool's execute, a seam
// method, a disposer), with what naming the entry in errors. It waits like Deliver, except
// that an unawaited one made while the realm is busy lets its promise go (see unawaited).
func (r *Realm) deliver(ctx context.Context, what string, fn goja.Callable, args func() []goja.Value, conv func(res goja.Value) error) error {
	return r.deliverBound(ctx, bound{What: what, Name: "CallTimeout", Limit: r.engine.timeouts.Call}, fn, args, conv)
}

// deliverBound runs one delivery bounded by b. It is the hot path of every Go event
// reaching JavaScript, so it avoids closures.
func (r *Realm) deliverBound(ctx context.Context, b bound, fn goja.Callable, args func() []goja.Value, conv func(res goja.Value) error) error {
	l := &r.engine.lock
	l.Lock()
	nested := r.core.Depth() > 0
	e, err := r.beginBound(ctx, b)
	if err != nil {
		l.Unlock()
		return err
	}
	var a []goja.Value
	if args != nil {
		a, err = r.buildArgs(args)
	}
	var res goja.Value
	if err == nil {
		res, err = r.callFn(fn, a)
	}
	return r.finish(ctx, e, nested, res, err, conv)
}

// callFn is invoke for a delivery, without a closure: a Go panic that escapes fn becomes
// the entry's error. Lock held.
func (r *Realm) callFn(fn goja.Callable, a []goja.Value) (res goja.Value, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = r.recovered(x)
		}
	}()
	return fn(goja.Undefined(), a...)
}

// buildArgs runs an args func; what it throws (a conversion error) becomes the error.
func (r *Realm) buildArgs(args func() []goja.Value) (a []goja.Value, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = r.recovered(x)
		}
	}()
	return args(), nil
}

// recovered turns a value recovered from code that may throw into an error: a thrown
// value, goja's own errors (wrapErr reads them), anything else as a Go panic. Lock held.
func (r *Realm) recovered(x any) error {
	switch x := x.(type) {
	case goja.Value:
		return r.jsError(x)
	case *goja.Exception:
		return r.jsError(x.Value())
	case *goja.InterruptedError, *goja.StackOverflowError:
		return x.(error)
	case runtime.Error:
		return r.goPanic(x)
	case error:
		return x
	}
	return r.goPanic(x)
}

// tryErr is try for a func that also returns an error.
func (r *Realm) tryErr(f func() error) error {
	var ferr error
	if err := r.try(func() { ferr = f() }); err != nil {
		return err
	}
	return ferr
}

// try runs f (which may call into JavaScript or throw) and returns what it threw as an
// error — a Go panic too, so no panic unwinds past the caller with the lock held. Lock
// held.
func (r *Realm) try(f func()) (err error) {
	defer func() {
		if x := recover(); x != nil {
			if e, ok := x.(error); ok {
				if _, bug := e.(runtime.Error); !bug {
					err = e
					return
				}
			}
			err = r.goPanic(x)
		}
	}()
	if ex := r.rt.Try(f); ex != nil {
		return ex
	}
	return nil
}

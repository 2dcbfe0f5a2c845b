package sandbox

import (
	"context"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"runtime/debug"
	"time"

	"github.com/cordiskit/cordiskit/sandbox/internal/engine"
	"github.com/dop251/goja"
)

// A bound describes one kind of entry into JavaScript and its time limits.
type bound = engine.Bound

// An entry is one call into a realm, timed by its bound (see package engine).
type entry = engine.Entry

// begin starts an entry. Called with l.mu held.
func (r *Realm) begin(ctx context.Context, what, name string, limit time.Duration) (*entry, error) {
	return r.beginBound(ctx, bound{What: what, Name: name, Limit: limit})
}

func (r *Realm) beginBound(ctx context.Context, b bound) (*entry, error) {
	if r.closed || r.engine.lock.Closed() {
		return nil, fmt.Errorf("%s: %s: %w", r.id, b.What, ErrClosed)
	}
	b.Alloc = uint64(r.engine.limits.MaxEntryAlloc)
	return r.core.Begin(ctx, b), nil
}

// timeoutOf describes why the entry e was interrupted.
func timeoutOf(e *entry) error {
	if err := allocErrorOf(e); err != nil {
		return err
	}
	b := e.Bound()
	byBound, cause := e.Expiry()
	if byBound {
		return newTimeout(e.Mount(), b.What, b.Name, b.Limit)
	}
	return &TimeoutError{Mount: e.Mount(), What: b.What, Bound: "context", cause: cause}
}

// end finishes an entry. Called with l.mu held.
func (r *Realm) end(e *entry) {
	if r.core.Depth() == 1 {
		// Promise jobs have drained: what is still unhandled is reported, while e still
		// bounds the work. e ends even if reporting panics (in the host's OnError).
		defer r.core.End(e)
		r.flushRejections()
		return
	}
	r.core.End(e)
}

// call runs one entry: it takes the lock, runs invoke, and when the result is a promise
// waits for it off the lock (bounded). conv reads the settled value under the lock.
func (r *Realm) call(ctx context.Context, b bound, invoke func() (goja.Value, error), conv func(goja.Value) error) error {
	l := &r.engine.lock
	l.Lock()
	nested := r.core.Depth() > 0
	e, err := r.beginBound(ctx, b)
	if err != nil {
		l.Unlock()
		return err
	}
	res, err := r.invoke(invoke)
	return r.finish(ctx, e, nested, res, err, conv)
}

// invoke runs f, the JavaScript of an entry. goja passes a Go panic of a native function
// through (after restoring its own state); here it becomes the entry's error, so it
// cannot unwind past the entry with the lock held. Lock held.
func (r *Realm) invoke(f func() (goja.Value, error)) (res goja.Value, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = r.recovered(x)
		}
	}()
	return f()
}

// finish completes an entry begun by call or deliver: it settles the result, runs conv,
// ends the entry, releases the lock and, for a pending promise, waits for it.
func (r *Realm) finish(ctx context.Context, e *entry, nested bool, res goja.Value, err error, conv func(goja.Value) error) error {
	b := *e.Bound()
	w, elapsed, err := r.complete(ctx, e, nested, res, err, conv)
	if w == nil {
		return err
	}
	limit, _ := b.WaitLimit()
	return r.await(ctx, b, w, limit-elapsed, conv)
}

// complete is the part of finish under the lock. It ends e and releases the lock however
// it returns: a panic on the way (in the host's OnError, a Go bug) must not leave the lock
// held, or every mount and every Go caller would wait for it forever.
func (r *Realm) complete(ctx context.Context, e *entry, nested bool, res goja.Value, err error, conv func(goja.Value) error) (w *engine.Wait, elapsed time.Duration, _ error) {
	l := &r.engine.lock
	defer l.Unlock()
	defer r.end(e)
	b := e.Bound()
	if err == nil {
		res, w, err = r.settled(res, b.Emit || nested && unawaited(ctx, b, conv), b.What)
	}
	if err == nil && w == nil && conv != nil {
		err = r.tryErr(func() error { return conv(res) })
	}
	err = r.wrapErr(e.Bound().What, err)
	if w != nil {
		elapsed = l.Elapsed(e)
	}
	return w, elapsed, err
}

// unawaited reports whether a nested entry of the sandbox's own deliveries (deliver) may
// leave its promise: one with no conv and a context that cannot be cancelled — a
// ctx.setTimeout callback, a disposer a seam method returned — is nobody's await, and its
// promise cannot settle before the outer call returns, which may be this very goroutine's
// (cancelling a timer waits for its callback to return).
func unawaited(ctx context.Context, b *bound, conv func(goja.Value) error) bool {
	return !b.WaitNested && conv == nil && (ctx == nil || ctx.Done() == nil)
}

// settled inspects a call's result. A settled promise yields its value (or its rejection as
// an error); a pending one yields a wait. With detach set nothing waits and nothing is
// returned: the promise is let go (forget), and what names the call in a report of its
// rejection.
func (r *Realm) settled(res goja.Value, detach bool, what string) (goja.Value, *engine.Wait, error) {
	p := asPromise(res)
	if p == nil {
		return res, nil, nil
	}
	if detach {
		return nil, nil, r.forget(p, what)
	}
	switch p.State() {
	case goja.PromiseStateFulfilled:
		return p.Result(), nil, nil
	case goja.PromiseStateRejected:
		r.handled(p)
		return nil, nil, r.jsError(p.Result())
	}
	w, err := r.watch(p)
	return nil, w, err
}

// forget lets go of the promise of a call nobody waits for, rejected or not. Nobody else
// will see its rejection, so a handler reports it when it comes — logged with the mount id
// and passed to Options.OnError, once, within the mount's rejection budget. The handler
// also marks the promise handled: it is not reported again as unhandled. Lock held.
func (r *Realm) forget(p *goja.Promise, what string) error {
	if p.State() == goja.PromiseStateFulfilled {
		return nil
	}
	then, err := r.then()
	if err != nil {
		return err
	}
	report := r.rt.ToValue(func(call goja.FunctionCall) goja.Value {
		r.reportForgotten(what, call.Argument(0))
		return goja.Undefined()
	})
	_, err = then(r.rt.ToValue(p), goja.Undefined(), report)
	return err
}

// reportForgotten reports the rejection of a promise that a call nobody waited for
// returned (see forget). Lock held.
func (r *Realm) reportForgotten(what string, v goja.Value) {
	if !r.reportRejection("sandbox: the promise "+what+" returned rejected (nobody awaits it)", "the promise "+what+" returned rejected (nobody awaits it; catch inside it to handle the error)", v) {
		r.dropRejections(1)
	}
}

func asPromise(v goja.Value) *goja.Promise {
	o, ok := v.(*goja.Object)
	if !ok || o.ExportType() != conv.PromiseType {
		return nil
	}
	p, _ := o.Export().(*goja.Promise)
	return p
}

// watch attaches handlers to p that settle the returned wait. Lock held.
func (r *Realm) watch(p *goja.Promise) (*engine.Wait, error) {
	w := engine.NewWait()
	settle := func(reject bool) goja.Value {
		return r.rt.ToValue(func(call goja.FunctionCall) goja.Value {
			w.Settle(call.Argument(0), reject)
			return goja.Undefined()
		})
	}
	then, err := r.then()
	if err != nil {
		return nil, err
	}
	if _, err := then(r.rt.ToValue(p), settle(false), settle(true)); err != nil {
		return nil, err
	}
	return w, nil
}

// await waits for w off the lock, then runs conv on the value under the lock.
func (r *Realm) await(ctx context.Context, b bound, w *engine.Wait, left time.Duration, conv func(goja.Value) error) error {
	switch w.Await(ctx, left) {
	case engine.Expired:
		limit, name := b.WaitLimit()
		return &TimeoutError{Mount: r.id, What: b.What + " (its promise did not settle)", Bound: name, Limit: limit, cause: context.DeadlineExceeded}
	case engine.Ended:
		return &TimeoutError{Mount: r.id, What: b.What + " (waiting for its promise)", Bound: "context", cause: context.Cause(ctx)}
	}
	l := &r.engine.lock
	l.Lock()
	defer l.Unlock()
	v, rejected := w.Result()
	if !rejected && conv == nil {
		return nil
	}
	e, err := r.begin(ctx, b.What, b.Name, b.Limit)
	if err != nil {
		return err
	}
	defer r.end(e)
	if rejected {
		return r.jsError(v)
	}
	return r.wrapErr(e.Bound().What, r.tryErr(func() error { return conv(v) }))
}

// then returns the intrinsic Promise.prototype.then, captured before mount code could
// replace it. Lock held.
func (r *Realm) then() (goja.Callable, error) {
	if r.promiseThen == nil {
		return nil, fmt.Errorf("%s: internal error: Promise.prototype.then was not captured", r.id)
	}
	return r.promiseThen, nil
}

// wrapErr turns what goja returned into a Go error naming the mount. A thrown value
// becomes a *JSError described without running the mount's code, so no error that leaves
// the sandbox holds a *goja.Exception: its Error and Unwrap methods read the thrown value
// (toString, a "value" getter, a Proxy's traps), on whatever goroutine formats it. Lock
// held.
func (r *Realm) wrapErr(what string, err error) error {
	switch x := gojaErr(err).(type) {
	case nil:
		return err
	case *goja.InterruptedError:
		if en, ok := x.Value().(*entry); ok {
			return timeoutOf(en)
		}
		return fmt.Errorf("%s: %s was interrupted: %w", r.id, what, x)
	case *goja.StackOverflowError:
		return &stackOverflow{mount: r.id, what: what, max: r.engine.limits.MaxCallStackSize, err: x}
	case *goja.Exception:
		return r.jsError(x.Value())
	}
	return err
}

// gojaErr finds the first *goja.Exception, *goja.InterruptedError or
// *goja.StackOverflowError in err's chain. Unlike errors.As it never calls an Exception's
// Unwrap, which runs a getter of the thrown value's (see wrapErr).
func gojaErr(err error) error {
	for err != nil {
		switch x := err.(type) {
		case *goja.Exception, *goja.InterruptedError, *goja.StackOverflowError:
			return x
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if g := gojaErr(e); g != nil {
					return g
				}
			}
			return nil
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		default:
			return nil
		}
	}
	return nil
}

// stackOverflow reports unbounded recursion; errors.As finds the *goja.StackOverflowError.
type stackOverflow struct {
	mount, what string
	max         int
	err         *goja.StackOverflowError
}

func (e *stackOverflow) Error() string {
	return fmt.Sprintf("%s: %s: stack overflow: more than %d nested calls (unbounded recursion?)", e.mount, e.what, e.max)
}

func (e *stackOverflow) Unwrap() error { return e.err }

// jsError describes a thrown or rejected JS value. Lock held.
func (r *Realm) jsError(v goja.Value) error {
	msg, stack := r.describe(v)
	return &JSError{Mount: r.id, Message: msg, Stack: stack, err: r.goError(v)}
}

// trackRejection is the runtime's promise rejection tracker. It runs for every rejection
// and every handler added to a rejected promise, so both are O(1): a mount may reject (and
// handle) promises by the hundred thousand.
func (r *Realm) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	if op == goja.PromiseRejectionReject {
		if r.rejectedAt == nil {
			r.rejectedAt = make(map[*goja.Promise]int)
		}
		r.rejectedAt[p] = len(r.rejected)
		r.rejected = append(r.rejected, p)
		return
	}
	r.handled(p)
}

func (r *Realm) handled(p *goja.Promise) {
	if i, ok := r.rejectedAt[p]; ok {
		r.rejected[i] = nil
		delete(r.rejectedAt, p)
	}
}

// flushRejections reports promises that were rejected and are still unhandled once the
// realm's jobs have drained, up to Limits.MaxRejectionReports for the mount; past it they
// are only counted (see summarizeRejections), so a storm of rejections costs the lock
// holder a count, not a description and a log record each. Lock held.
func (r *Realm) flushRejections() {
	if len(r.rejected) == 0 {
		return
	}
	ps := r.rejected
	r.rejected = nil
	clear(r.rejectedAt)
	dropped := 0
	for _, p := range ps {
		if p == nil {
			continue // handled after all
		}
		if !r.reportRejection("sandbox: unhandled promise rejection", "", p.Result()) {
			dropped++
		}
	}
	r.dropRejections(dropped)
}

// reportRejection logs the rejection value v with msg and hands it to Options.OnError —
// wrapped in what (when not empty), which says whose promise it was — unless the mount
// has spent its budget of Limits.MaxRejectionReports; it reports whether it did. Lock held.
func (r *Realm) reportRejection(msg, what string, v goja.Value) bool {
	if r.reports >= r.engine.limits.MaxRejectionReports {
		return false
	}
	r.reports++
	desc, stack := r.describe(v)
	r.logger.Error(msg, "err", desc, "stack", stack)
	var err error = &JSError{Mount: r.id, Message: desc, Stack: stack, err: r.goError(v)}
	if what != "" {
		err = fmt.Errorf("%s: %w", what, err)
	}
	r.tellHost(err)
	return true
}

// dropRejections counts n rejections left unreported past the budget, and summarizes them
// when their count has doubled since the last summary. Lock held.
func (r *Realm) dropRejections(n int) {
	if n == 0 {
		return
	}
	r.unreported += n
	if r.unreported >= 2*r.summarized {
		r.summarizeRejections()
	}
}

// summarizeRejections reports, in one line, the unhandled rejections not reported since
// the last summary. It runs when their count reaches twice what the last summary said
// (so a mount that rejects forever costs a logarithmic number of lines) and when the
// mount closes. Lock held.
func (r *Realm) summarizeRejections() {
	n := r.unreported - r.summarized
	if n <= 0 {
		return
	}
	r.summarized = r.unreported
	err := fmt.Errorf("%s: %d more unhandled promise rejections were not reported (%d in all): the mount reached its budget of %d reports (Limits.MaxRejectionReports) — fix the rejections reported first, and handle promises with .catch() or try/await",
		r.id, n, r.unreported, r.engine.limits.MaxRejectionReports)
	r.logger.Error("sandbox: unhandled promise rejections not reported", "err", err.Error())
	r.tellHost(err)
}

// tellHost hands err to Options.OnError. The handler is the host's code, run here with
// the lock held (often while an entry ends or a mount closes): a panic in it is logged
// rather than let unwind through the engine's bookkeeping. Lock held.
func (r *Realm) tellHost(err error) {
	f := r.engine.onError
	if f == nil {
		return
	}
	defer func() {
		if x := recover(); x != nil {
			r.logger.Error("sandbox: Options.OnError panicked", "panic", panicTextUnlocked(x), "stack", string(debug.Stack()))
		}
	}()
	f(r.id, err)
}

package sandbox

import (
	"context"
	"fmt"
	"reflect"
	"runtime/debug"
	"time"

	"github.com/dop251/goja"
)

// A bound describes one kind of entry into JavaScript and its time limits.
type bound struct {
	what  string        // "a listener", "evaluation", …: used in errors
	name  string        // "CallTimeout", …: the option that sets limit
	limit time.Duration // bounds the synchronous call (and the jobs it drains)
	wait  time.Duration // bounds waiting for a returned promise; 0 means limit
	// waitName is the option that sets wait; "" means name.
	waitName string
	// waitNested lets a call that nests inside another entry of the realm wait for its
	// promise anyway (the outer entry belongs to another goroutine and will return).
	waitNested bool
	// emit gives the entry emit semantics (DeliverEmit): it never waits for a promise its
	// call returns; the promise's rejection is reported instead (see forget).
	emit bool
}

// An entry is one call into a realm, timed by its bound. An expired entry interrupts the
// runtime; the interrupt unwinds every JavaScript frame above the outermost entry of the
// realm, so entries nested inside an expired one fail with it.
type entry struct {
	r      *Realm
	b      bound
	parent *entry // the entry this one nests in on the same goroutine (loop.cur at begin)
	height int    // r.depth right after begin: the entry is on top of its realm while equal

	// Guarded by loop.watch.mu.
	prev, next *entry
	linked     bool
	start      time.Duration // coarse clock at begin
	deadline   time.Duration // 0: no limit
	fired      bool
	byBound    bool          // the bound expired (not the caller's context)
	cause      error         // set when fired
	excused    time.Duration // time of other mounts' entries not counted (see excuse)

	stopCtx func() bool
}

var errDeadline = context.DeadlineExceeded

// begin starts an entry. Called with l.mu held.
func (r *Realm) begin(ctx context.Context, what, name string, limit time.Duration) (*entry, error) {
	return r.beginBound(ctx, bound{what: what, name: name, limit: limit})
}

func (r *Realm) beginBound(ctx context.Context, b bound) (*entry, error) {
	l := r.loop
	if r.closed || l.closed {
		return nil, fmt.Errorf("%s: %s: %w", r.id, b.what, ErrClosed)
	}
	r.depth++
	e := l.newEntry()
	e.r, e.b, e.parent, e.height = r, b, l.cur, r.depth
	l.cur = e
	l.watch.add(l, e, b.limit)
	if ctx != nil && ctx.Done() != nil {
		e.stopCtx = context.AfterFunc(ctx, func() { e.fire(context.Cause(ctx), false) })
	}
	return e, nil
}

// newEntry takes an entry from the loop's free list. Lock held.
func (l *Loop) newEntry() *entry {
	if n := len(l.free); n > 0 {
		e := l.free[n-1]
		l.free = l.free[:n-1]
		return e
	}
	return &entry{}
}

func (e *entry) fire(cause error, byBound bool) {
	w := &e.r.loop.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	e.fireLocked(cause, byBound)
}

// fireLocked interrupts e's realm. Called with loop.watch.mu held.
func (e *entry) fireLocked(cause error, byBound bool) {
	if !e.linked || e.fired {
		return
	}
	e.fired, e.cause, e.byBound = true, cause, byBound
	e.r.fired++
	e.r.rt.Interrupt(e)
}

// err describes why the entry was interrupted.
func (e *entry) err() error {
	if e.byBound {
		return newTimeout(e.r.id, e.b.what, e.b.name, e.b.limit)
	}
	return &TimeoutError{Mount: e.r.id, What: e.b.what, Bound: "context", cause: e.cause}
}

// end finishes an entry. Called with l.mu held.
func (r *Realm) end(e *entry) {
	if r.depth == 1 {
		// Promise jobs have drained: what is still unhandled is reported, while e still
		// bounds the work. e ends even if reporting panics (in the host's OnError).
		defer r.release(e)
		r.flushRejections()
		return
	}
	r.release(e)
}

// release is the bookkeeping of end: it unlinks e, excuses suspended chains and pops e off
// the realm and the goroutine's chain. Lock held.
func (r *Realm) release(e *entry) {
	reuse := true
	if e.stopCtx != nil {
		// A context callback that already started may still look at e: do not reuse it.
		reuse = e.stopCtx()
		e.stopCtx = nil
	}
	l := r.loop
	w := &l.watch
	w.mu.Lock()
	if e.parent == nil && len(l.suspended) > 0 {
		l.excuse(e)
	}
	w.unlink(e)
	fired := e.fired
	if fired {
		r.fired--
		if r.fired == 0 {
			// The interrupt was this entry's: let outer frames of the realm continue.
			r.rt.ClearInterrupt()
		}
	}
	w.mu.Unlock()
	r.depth--
	l.cur = e.parent
	if reuse && !fired { // a fired entry may still be referenced by an InterruptedError
		*e = entry{}
		l.free = append(l.free, e)
	}
	if l.waiters > 0 {
		l.cond.Broadcast()
	}
}

// excuse stops the clocks of suspended chains for the time e ran: e began on a free lock
// (a chain of its own) while those chains were out in Sync — typically an event a Go call
// of theirs emitted, delivered inline to a listener of another mount. That time is not
// theirs, so it does not count against their bounds (nor against the wait for a promise
// they return). Entries of e's own realm keep counting it: it is their code that ran.
//
// An entry is excused at most its own limit in all: otherwise two mounts could keep one
// entry alive forever, one emitting events in a loop and the other spending just under its
// bound in each listener run. So every entry ends within twice its limit of wall time (plus
// a tick), and — when it expires while another mount's listener runs — the rest of that
// run, itself bounded: at most three times its limit with equal bounds. The wait for a
// promise the entry returns adds that bound once more.
// Called with l.mu and w.mu held.
func (l *Loop) excuse(e *entry) {
	d := time.Since(l.watch.epoch) - e.start // e.start lags by up to a tick: generous
	if d <= 0 {
		return
	}
	for _, c := range l.suspended {
		for x := c; x != nil; x = x.parent {
			if x.r == e.r || !x.linked {
				continue
			}
			dx := min(d, x.b.limit-x.excused)
			if dx <= 0 {
				continue
			}
			x.excused += dx
			x.start += dx
			if x.deadline > 0 {
				x.deadline += dx
			}
		}
	}
}

// onTop reports whether every entry of the chain ending at e is again the innermost entry
// of its realm: no call that began while the chain's goroutine was out (in Sync) is still
// in progress in any realm the chain has frames in. Lock held.
func (e *entry) onTop() bool {
	for ; e != nil; e = e.parent {
		if e.r.depth != e.height {
			return false
		}
	}
	return true
}

// call runs one entry: it takes the lock, runs invoke, and when the result is a promise
// waits for it off the lock (bounded). conv reads the settled value under the lock.
func (r *Realm) call(ctx context.Context, b bound, invoke func() (goja.Value, error), conv func(goja.Value) error) error {
	l := r.loop
	l.mu.Lock()
	nested := r.depth > 0
	e, err := r.beginBound(ctx, b)
	if err != nil {
		l.mu.Unlock()
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
	b := e.b
	w, elapsed, err := r.complete(ctx, e, nested, res, err, conv)
	if w == nil {
		return err
	}
	limit := b.wait
	if limit == 0 {
		limit = b.limit
	}
	return r.await(ctx, b, w, limit-elapsed, conv)
}

// complete is the part of finish under the lock. It ends e and releases the lock however
// it returns: a panic on the way (in the host's OnError, a Go bug) must not leave the lock
// held, or every mount and every Go caller would wait for it forever.
func (r *Realm) complete(ctx context.Context, e *entry, nested bool, res goja.Value, err error, conv func(goja.Value) error) (w *promiseWait, elapsed time.Duration, _ error) {
	l := r.loop
	defer l.mu.Unlock()
	defer r.end(e)
	if err == nil {
		res, w, err = r.settled(res, e.b.emit || nested && unawaited(ctx, e.b, conv), e.b.what)
	}
	if err == nil && w == nil && conv != nil {
		err = r.tryErr(func() error { return conv(res) })
	}
	err = r.wrapErr(e, err)
	if w != nil {
		elapsed = l.watch.elapsed(e)
	}
	return w, elapsed, err
}

// unawaited reports whether a nested entry of the sandbox's own deliveries (deliver) may
// leave its promise: one with no conv and a context that cannot be cancelled — a
// ctx.setTimeout callback, a disposer a seam method returned — is nobody's await, and its
// promise cannot settle before the outer call returns, which may be this very goroutine's
// (cancelling a timer waits for its callback to return).
func unawaited(ctx context.Context, b bound, conv func(goja.Value) error) bool {
	return !b.waitNested && conv == nil && (ctx == nil || ctx.Done() == nil)
}

// settled inspects a call's result. A settled promise yields its value (or its rejection as
// an error); a pending one yields a wait. With detach set nothing waits and nothing is
// returned: the promise is let go (forget), and what names the call in a report of its
// rejection.
func (r *Realm) settled(res goja.Value, detach bool, what string) (goja.Value, *promiseWait, error) {
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
	if !ok || o.ExportType() != promiseType {
		return nil
	}
	p, _ := o.Export().(*goja.Promise)
	return p
}

var promiseType = reflect.TypeFor[*goja.Promise]()

// A promiseWait is a pending promise being watched from Go.
type promiseWait struct {
	done   chan struct{}
	value  goja.Value // guarded by loop.mu, set before done closes
	reject bool
}

// watch attaches handlers to p that close w.done when it settles. Lock held.
func (r *Realm) watch(p *goja.Promise) (*promiseWait, error) {
	w := &promiseWait{done: make(chan struct{})}
	settle := func(reject bool) goja.Value {
		return r.rt.ToValue(func(call goja.FunctionCall) goja.Value {
			select {
			case <-w.done:
			default:
				w.value, w.reject = call.Argument(0), reject
				close(w.done)
			}
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
func (r *Realm) await(ctx context.Context, b bound, w *promiseWait, left time.Duration, conv func(goja.Value) error) error {
	if left <= 0 {
		left = time.Nanosecond
	}
	t := time.NewTimer(left)
	defer t.Stop()
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	select {
	case <-w.done:
	case <-t.C:
		limit, name := b.wait, b.waitName
		if limit == 0 {
			limit = b.limit
		}
		if name == "" {
			name = b.name
		}
		return &TimeoutError{Mount: r.id, What: b.what + " (its promise did not settle)", Bound: name, Limit: limit, cause: context.DeadlineExceeded}
	case <-done:
		return &TimeoutError{Mount: r.id, What: b.what + " (waiting for its promise)", Bound: "context", cause: context.Cause(ctx)}
	}
	l := r.loop
	l.mu.Lock()
	defer l.mu.Unlock()
	if !w.reject && conv == nil {
		return nil
	}
	e, err := r.begin(ctx, b.what, b.name, b.limit)
	if err != nil {
		return err
	}
	defer r.end(e)
	if w.reject {
		return r.jsError(w.value)
	}
	return r.wrapErr(e, r.tryErr(func() error { return conv(w.value) }))
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
func (r *Realm) wrapErr(e *entry, err error) error {
	switch x := gojaErr(err).(type) {
	case nil:
		return err
	case *goja.InterruptedError:
		if en, ok := x.Value().(*entry); ok {
			return en.err()
		}
		return fmt.Errorf("%s: %s was interrupted: %w", r.id, e.b.what, x)
	case *goja.StackOverflowError:
		return &stackOverflow{mount: r.id, what: e.b.what, max: r.loop.limits.MaxCallStackSize, err: x}
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
	if r.reports >= r.loop.limits.MaxRejectionReports {
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
		r.id, n, r.unreported, r.loop.limits.MaxRejectionReports)
	r.logger.Error("sandbox: unhandled promise rejections not reported", "err", err.Error())
	r.tellHost(err)
}

// tellHost hands err to Options.OnError. The handler is the host's code, run here with
// the lock held (often while an entry ends or a mount closes): a panic in it is logged
// rather than let unwind through the loop's bookkeeping. Lock held.
func (r *Realm) tellHost(err error) {
	f := r.loop.onError
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

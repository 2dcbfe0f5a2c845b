package engine

import (
	"cmp"
	"context"
	"time"
)

// A Bound describes one kind of entry into JavaScript and its time limits.
type Bound struct {
	What  string        // "a listener", "evaluation", …: used in errors
	Name  string        // "CallTimeout", …: the option that sets Limit
	Limit time.Duration // bounds the synchronous call (and the jobs it drains)
	Wait  time.Duration // bounds waiting for a returned promise; 0 means Limit
	// WaitName is the option that sets Wait; "" means Name.
	WaitName string
	// WaitNested lets a call that nests inside another entry of the realm wait for its
	// promise anyway (the outer entry belongs to another goroutine and will return).
	WaitNested bool
	// Emit gives the entry emit semantics: it never waits for a promise its call returns;
	// the promise's rejection is reported instead.
	Emit bool
	// Alloc bounds, in bytes, the heap growth the entry is charged while it runs (see the
	// package doc, "Memory"); past it the watchdog interrupts the entry with ErrAlloc as
	// its cause. 0 means no budget, and no sampling for this entry.
	Alloc uint64
}

// WaitLimit returns the bound on waiting for a returned promise and the option that sets it.
func (b *Bound) WaitLimit() (time.Duration, string) {
	return cmp.Or(b.Wait, b.Limit), cmp.Or(b.WaitName, b.Name)
}

// An Entry is one call into a realm, timed by its bound. An expired entry interrupts the
// runtime with itself as the value (goja's *InterruptedError.Value); the interrupt unwinds
// every JavaScript frame above the outermost entry of the realm, so entries nested inside
// an expired one fail with it.
type Entry struct {
	r      *Realm
	b      Bound
	parent *Entry // the entry this one nests in on the same goroutine (lock.cur at Begin)
	out    *Entry // while e is the innermost entry of a chain out in Unlocked: the chain that went out before it (Lock.suspended)
	height int    // r.depth right after Begin: the entry is on top of its realm while equal

	// Guarded by lock.watch.mu.
	prev, next   *Entry
	linked       bool
	start        time.Duration // coarse clock at Begin
	deadline     time.Duration // 0: no limit
	fired        bool
	byBound      bool          // the bound expired (not the caller's context)
	cause        error         // set when fired
	excused      time.Duration // time of other realms' entries not counted (see excuse)
	based        bool          // base holds the first heap sample taken after Begin
	seen         uint64        // watch.reads at Begin: a read numbered above it began after
	base         heapSample
	allocExcused uint64 // heap growth of other realms' entries not counted (see excuse)

	stopCtx func() bool
}

var errDeadline = context.DeadlineExceeded

// Bound returns the bound e was begun with.
func (e *Entry) Bound() *Bound { return &e.b }

// Mount returns the id of e's realm.
func (e *Entry) Mount() string { return e.r.id }

// Expiry reports why e was interrupted: by its own time bound (byBound), or with cause —
// ErrAlloc for its allocation budget, else its context's cause. Valid once the interrupt
// has been observed.
func (e *Entry) Expiry() (byBound bool, cause error) {
	w := &e.r.lock.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	return e.byBound, e.cause
}

// Begin starts an entry of r bounded by b and, when ctx can end, by ctx. The caller has
// checked that the realm is open. Lock held.
func (r *Realm) Begin(ctx context.Context, b Bound) *Entry {
	l := r.lock
	r.depth++
	e := l.newEntry()
	e.r, e.b, e.parent, e.height = r, b, l.cur, r.depth
	l.cur = e
	l.watch.add(l, e, b.Limit)
	if ctx != nil && ctx.Done() != nil {
		e.stopCtx = context.AfterFunc(ctx, func() { e.fire(context.Cause(ctx), false) })
	}
	return e
}

// newEntry takes an entry from the lock's free list. Lock held.
func (l *Lock) newEntry() *Entry {
	if n := len(l.free); n > 0 {
		e := l.free[n-1]
		l.free = l.free[:n-1]
		return e
	}
	return &Entry{}
}

func (e *Entry) fire(cause error, byBound bool) {
	w := &e.r.lock.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	e.fireLocked(cause, byBound)
}

// fireLocked interrupts e's realm. Called with lock.watch.mu held.
func (e *Entry) fireLocked(cause error, byBound bool) {
	if !e.linked || e.fired {
		return
	}
	e.fired, e.cause, e.byBound = true, cause, byBound
	e.r.fired++
	e.r.rt.Interrupt(e)
}

// End finishes e: it unlinks e, excuses suspended chains, clears the realm's interrupt
// when e's was the last, and pops e off the realm and the goroutine's chain. Lock held.
func (r *Realm) End(e *Entry) {
	reuse := true
	if e.stopCtx != nil {
		// A context callback that already started may still look at e: do not reuse it.
		reuse = e.stopCtx()
		e.stopCtx = nil
	}
	l := r.lock
	w := &l.watch
	w.mu.Lock()
	if e.parent == nil && l.suspended != nil {
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
		*e = Entry{}
		l.free = append(l.free, e)
	}
	if l.waiters > 0 {
		l.cond.Broadcast()
	}
}

// excuse stops the clocks of suspended chains for the time e ran: e began on a free lock
// (a chain of its own) while those chains were out in Unlocked — typically an event a Go
// call of theirs emitted, delivered inline to a listener of another mount. That time is
// not theirs, so it does not count against their bounds (nor against the wait for a
// promise they return). Entries of e's own realm keep counting it: it is their code that
// ran.
//
// An entry is excused at most its own limit in all: otherwise two mounts could keep one
// entry alive forever, one emitting events in a loop and the other spending just under its
// bound in each listener run. So every entry ends within twice its limit of wall time (plus
// a tick), and — when it expires while another mount's listener runs — the rest of that
// run, itself bounded: at most three times its limit with equal bounds. The wait for a
// promise the entry returns adds that bound once more.
//
// The heap growth e was charged (as of the last sample) is excused the same way, up to
// each entry's own budget in all: so an entry is charged at most twice its budget of
// other realms' JavaScript.
// Called with the lock and w.mu held.
func (l *Lock) excuse(e *Entry) {
	d := time.Since(l.watch.epoch) - e.start // e.start lags by up to a tick: generous
	a := l.watch.charge(e)
	if d <= 0 && a == 0 {
		return
	}
	for c := l.suspended; c != nil; c = c.out {
		for x := c; x != nil; x = x.parent {
			if x.r == e.r || !x.linked {
				continue
			}
			x.allocExcused += min(a, sub0(x.b.Alloc, x.allocExcused))
			dx := min(d, x.b.Limit-x.excused)
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
// of its realm: no call that began while the chain's goroutine was out (in Unlocked) is
// still in progress in any realm the chain has frames in. Lock held.
func (e *Entry) onTop() bool {
	for ; e != nil; e = e.parent {
		if e.r.depth != e.height {
			return false
		}
	}
	return true
}

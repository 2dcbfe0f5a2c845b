package engine

import (
	"context"
	"slices"
	"sync"
	"time"
)

// A Lock is the one lock of a sandbox: every realm's entries take it (see the package
// doc). The zero value is not ready: call [Lock.Init] first.
type Lock struct {
	mu      sync.Mutex
	cond    sync.Cond // broadcast when an entry ends and someone waits (waiters > 0)
	waiters int
	cur     *Entry // the lock holder's innermost entry; nil whenever the lock is free
	// suspended holds the innermost entries of the chains that are out in Unlocked: while
	// a chain of another realm runs, their clocks stop (see excuse).
	suspended []*Entry
	free      []*Entry
	watch     watchdog

	wg     sync.WaitGroup // the watchdog and the goroutines Go started
	ctx    context.Context
	cancel context.CancelFunc
	closed bool
	// closedCause is what the watchdog interrupts still-running entries with when the
	// lock closes.
	closedCause error
}

// Init readies l. smallest is the smallest time bound of the sandbox (it sets the
// watchdog's tick); closedCause is the error entries still running at Close are
// interrupted with.
func (l *Lock) Init(smallest time.Duration, closedCause error) {
	l.cond.L = &l.mu
	l.watch.init(smallest)
	l.closedCause = closedCause
	l.ctx, l.cancel = context.WithCancel(context.Background())
}

// Lock takes the lock.
func (l *Lock) Lock() { l.mu.Lock() }

// Unlock releases the lock.
func (l *Lock) Unlock() { l.mu.Unlock() }

// Current returns the lock holder's innermost entry, or nil. Lock held.
func (l *Lock) Current() *Entry { return l.cur }

// Closed reports whether Close has begun. Lock held.
func (l *Lock) Closed() bool { return l.closed }

// Unlocked runs fn with the lock released, so Go code fn calls may enter any realm — even
// the caller's — without deadlock. Lock held on entry and on return, also when fn panics
// (the panic goes on, for the native function's own recover to turn into a JavaScript
// Error).
//
// On return Unlocked waits until every entry that began, while it was out, in a realm this
// goroutine has frames in has ended: a realm's calls nest strictly, whichever goroutines
// make them. The lock is retaken with a plain defer (no closure, no recover), which the
// compiler open-codes: this is on the path of every synchronous JS → Go call.
func (l *Lock) Unlocked(fn func()) {
	chain := l.suspend()
	defer l.resume(chain)
	fn()
}

// suspend takes the holder's chain off the lock and releases it.
func (l *Lock) suspend() *Entry {
	chain := l.cur
	l.cur = nil // the lock is free: whoever takes it starts a chain of its own
	if chain != nil {
		l.suspended = append(l.suspended, chain)
	}
	l.mu.Unlock()
	return chain
}

// resume retakes the lock for chain once it is on top again.
func (l *Lock) resume(chain *Entry) {
	l.mu.Lock()
	for !chain.onTop() {
		l.waiters++
		l.cond.Wait()
		l.waiters--
	}
	if chain != nil {
		l.unsuspend(chain)
	}
	l.cur = chain
}

// unsuspend removes chain from the suspended chains: usually the last one (chains resume
// in the order they left, unless goroutines interleave), popped without a search. The slot
// past the end keeps its pointer until reused, which holds at most one entry more.
func (l *Lock) unsuspend(chain *Entry) {
	if n := len(l.suspended); n > 0 && l.suspended[n-1] == chain {
		l.suspended = l.suspended[:n-1]
		return
	}
	if i := slices.Index(l.suspended, chain); i >= 0 {
		l.suspended = slices.Delete(l.suspended, i, i+1)
	}
}

// Elapsed returns the time since e began, less the time excused (measured from the coarse
// clock, so it may be up to a tick more).
func (l *Lock) Elapsed(e *Entry) time.Duration { return l.watch.elapsed(e) }

// Close marks the lock closed, so [Realm.Go] refuses new calls, cancels their contexts and
// interrupts every entry still running, then waits, bounded by ctx, for the goroutines
// the lock started. It returns the cause of ctx when ctx ends first.
func (l *Lock) Close(ctx context.Context) error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cancel()
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

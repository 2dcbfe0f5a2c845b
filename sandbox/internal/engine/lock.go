package engine

import (
	"context"
	"slices"
	"sync"
	"time"
)

// A Lock is the lock of one engine: every entry of its realms takes it (see the package
// doc; a sandbox has one engine per session). The zero value is not ready: call
// [Lock.Init] or [Lock.InitOwned] first.
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

	// wg counts the watchdog and the goroutines Go started: the lock's own, or its owner's
	// (InitOwned), shared by every lock the owner made.
	wg     *sync.WaitGroup
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
	l.InitOwned(smallest, closedCause, new(sync.WaitGroup))
}

// InitOwned is Init for one of several locks of one owner (a sandbox's engines, one per
// session): wg counts the goroutines of each, so the owner waits for all of them at once
// — those of the locks it has retired too — without keeping the retired locks.
func (l *Lock) InitOwned(smallest time.Duration, closedCause error, wg *sync.WaitGroup) {
	l.wg = wg
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

// Retire marks the lock closed, so [Realm.Go] refuses new calls and entries are refused
// (see Closed), cancels the contexts of the calls in flight and interrupts every entry
// still running. It does not wait: the goroutines the lock started end on their own, and
// whoever owns the lock's WaitGroup waits for them. Lock not held.
func (l *Lock) Retire() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cancel()
}

// Close retires the lock, then waits, bounded by ctx, for the goroutines of its WaitGroup
// (with [Lock.InitOwned], every lock's of its owner). It returns the cause of ctx when ctx
// ends first.
func (l *Lock) Close(ctx context.Context) error {
	l.Retire()
	return WaitAll(ctx, l.wg)
}

// WaitAll waits for wg, bounded by ctx: it returns the cause of ctx when ctx ends first.
func WaitAll(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

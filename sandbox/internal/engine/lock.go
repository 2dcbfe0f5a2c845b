package engine

import (
	"context"
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
	// suspended is the innermost entry of the chain that went out in Unlocked last, its
	// out the one before it, and so on: the chains out in Unlocked, a stack linked through
	// their entries, so going out grows no slice. While a chain of another realm runs,
	// their clocks stop (see excuse).
	suspended *Entry
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
// make them. It is [Lock.Suspend], fn, and [Lock.Resume] deferred.
func (l *Lock) Unlocked(fn func()) {
	chain := l.Suspend()
	defer l.Resume(chain)
	fn()
}

// Suspend is the first half of [Lock.Unlocked], for a native function on the path of
// every JS → Go call that cannot afford a closure and a frame of its own (sandbox/bind's
// synchronous methods): it takes the holder's chain off the lock and releases it. The
// caller must call Resume with the chain it returned on the same goroutine before it
// touches JavaScript again — also when the Go call panics, so Resume belongs in a function
// the caller defers. Lock held.
func (l *Lock) Suspend() *Entry {
	chain := l.cur
	l.cur = nil // the lock is free: whoever takes it starts a chain of its own
	if chain != nil {
		chain.out, l.suspended = l.suspended, chain
	}
	l.mu.Unlock()
	return chain
}

// Resume is the second half of [Lock.Unlocked]: it retakes the lock for chain (what
// Suspend returned) once chain is on top again. Lock not held; held on return. The usual
// case — nothing of chain's realms began while it was out, and it left last — takes the
// mutex and pops chain without a call.
func (l *Lock) Resume(chain *Entry) {
	l.mu.Lock()
	if chain != nil && l.suspended == chain && chain.onTop() {
		l.suspended, chain.out = chain.out, nil
		l.cur = chain
		return
	}
	l.resume(chain)
}

// resume is Resume past its first check: chain is nil, not the last chain to leave, or
// not on top yet. Lock held.
func (l *Lock) resume(chain *Entry) {
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

// unsuspend removes chain from the suspended chains: usually the top one (chains resume
// in the order they left, unless goroutines interleave), else found by a walk.
func (l *Lock) unsuspend(chain *Entry) {
	for p := &l.suspended; *p != nil; p = &(*p).out {
		if *p == chain {
			*p, chain.out = chain.out, nil
			return
		}
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

package sandbox

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// A teardownBudget bounds the JavaScript effect disposers of one activation together
// (Limits.Teardown). Each disposer is bounded by CallTimeout on its own, but a mount with a
// thousand of them that each hang would hold an unmount — and the toolset's lock with it —
// for a thousand CallTimeouts. The budget starts when the first disposer runs; a disposer
// that starts after it is spent is not run, one that is running when it runs out is
// interrupted, and the first of them reports how many were abandoned. Go-side effects
// (listeners, tools, services, timers) are kit effects, not disposers: they are always
// undone.
type teardownBudget struct {
	mu       sync.Mutex
	pending  int       // disposers registered and not yet run or abandoned
	deadline time.Time // zero until the first disposer runs
	reported bool      // the abandoned disposers have been reported
}

// add counts a disposer being registered; undo reverses it when registering failed.
func (b *teardownBudget) add()  { b.mu.Lock(); b.pending++; b.mu.Unlock() }
func (b *teardownBudget) undo() { b.mu.Lock(); b.pending--; b.mu.Unlock() }

// start is called as a disposer begins: it starts the clock on the first call and returns
// the deadline, or false when the budget is already spent.
func (b *teardownBudget) start(limit time.Duration) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if b.deadline.IsZero() {
		b.deadline = now.Add(limit)
	}
	return b.deadline, now.Before(b.deadline)
}

// finish counts a disposer that ran to its end (or failed on its own).
func (b *teardownBudget) finish() { b.undo() }

// abandon counts a disposer that did not finish. The first call returns the report, with
// every disposer not yet run counted in it; later calls return nil.
func (b *teardownBudget) abandon(mount string, limit time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.pending
	b.pending--
	if b.reported {
		return nil
	}
	b.reported = true
	return &AbandonedError{Mount: mount, Disposers: n, Limit: limit}
}

// An AbandonedError reports effect disposers of a mount that did not finish within the
// teardown bound (Limits.Teardown) and were abandoned. errors.Is(err,
// context.DeadlineExceeded) holds.
type AbandonedError struct {
	Mount     string        // "dyn-3"
	Disposers int           // how many did not finish: the one interrupted and those never run
	Limit     time.Duration // Limits.Teardown
}

func (e *AbandonedError) Error() string {
	what, were := "effect disposers", "were"
	if e.Disposers == 1 {
		what, were = "effect disposer", "was"
	}
	return fmt.Sprintf("%s: %d %s did not finish within the %v teardown bound (Limits.Teardown) and %s abandoned; "+
		"everything else the plugin registered was removed. Keep ctx.effect disposers short and synchronous: "+
		"they should only release what the plugin holds, not wait for promises that may never settle",
		e.Mount, e.Disposers, what, e.Limit, were)
}

func (e *AbandonedError) Unwrap() error { return context.DeadlineExceeded }

// runDisposer runs one JavaScript effect disposer within the activation's teardown budget.
// Called by the kit during teardown, without the lock.
func (f *ctxFacade) runDisposer(fn goja.Callable) error {
	r := f.r
	limit := r.engine.limits.Teardown
	deadline, ok := f.teardown.start(limit)
	if !ok {
		return f.teardown.abandon(r.id, limit)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	err := r.deliver(ctx, "an effect disposer", fn, nil, nil)
	if err != nil && ctx.Err() != nil {
		return f.teardown.abandon(r.id, limit)
	}
	f.teardown.finish()
	return err
}

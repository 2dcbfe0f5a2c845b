package engine

import (
	"context"
	"time"

	"github.com/dop251/goja"
)

// A Wait is a pending promise watched from Go: the promise's handlers call Settle (lock
// held), and the goroutine that returned the promise waits off the lock in Await.
type Wait struct {
	done   chan struct{}
	value  goja.Value // guarded by the lock, set before done closes
	reject bool
}

// NewWait returns a Wait for a promise not yet settled.
func NewWait() *Wait { return &Wait{done: make(chan struct{})} }

// Settle records the promise's outcome: its value, and whether it rejected. Only the
// first call counts. Lock held.
func (w *Wait) Settle(v goja.Value, reject bool) {
	select {
	case <-w.done:
	default:
		w.value, w.reject = v, reject
		close(w.done)
	}
}

// Result returns what Settle recorded. Lock held, after Await reported the settlement.
func (w *Wait) Result() (v goja.Value, rejected bool) { return w.value, w.reject }

// An Outcome is how an Await ended.
type Outcome int

const (
	Settled Outcome = iota // the promise settled
	Expired                // the time bound passed first
	Ended                  // the caller's context ended first
)

// Await waits, with the lock not held, until the promise settles, left passes (at least
// a nanosecond) or ctx (which may be nil) ends.
func (w *Wait) Await(ctx context.Context, left time.Duration) Outcome {
	t := time.NewTimer(max(left, time.Nanosecond))
	defer t.Stop()
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	select {
	case <-w.done:
		return Settled
	case <-t.C:
		return Expired
	case <-done:
		return Ended
	}
}

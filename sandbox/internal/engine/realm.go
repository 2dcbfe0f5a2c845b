package engine

import (
	"context"
	"time"

	"github.com/dop251/goja"
)

// A Realm is the engine's part of one realm: the runtime the watchdog interrupts, the
// entries in progress and the async Go calls not yet settled. Package sandbox's realm
// holds one. Its fields are guarded by the lock (see the package doc).
type Realm struct {
	lock *Lock
	rt   *goja.Runtime
	id   string

	depth int // entries in progress (including ones whose goroutine is out in Unlocked)
	fired int // active entries whose bound expired; guarded by lock.watch.mu

	ctx    context.Context // the async calls' parent, made by the first one; cancelled by Cancel
	cancel context.CancelFunc
	// inflight counts the async Go calls that have not settled; idle, made by an Idle that
	// finds some, is closed by the last of them.
	inflight int
	idle     chan struct{}
}

// Init ties r to the lock and to rt, the runtime of mount id. Lock held.
func (r *Realm) Init(l *Lock, rt *goja.Runtime, id string) { r.lock, r.rt, r.id = l, rt, id }

// Depth returns the number of r's entries in progress. Lock held.
func (r *Realm) Depth() int { return r.depth }

// Go runs call on a goroutine the lock owns, off the lock, with a context bounded by limit
// (0: no bound of its own) and cancelled by [Realm.Cancel] or [Lock.Close]; then it takes
// the lock and runs settle. Go reports false, and runs neither, when the lock is closed.
// Lock held.
func (r *Realm) Go(limit time.Duration, call func(ctx context.Context), settle func()) bool {
	l := r.lock
	if l.closed {
		return false
	}
	if r.ctx == nil {
		// Made on first use: most realms never make an async Go call.
		r.ctx, r.cancel = context.WithCancel(l.ctx)
	}
	rctx := r.ctx
	r.inflight++
	l.wg.Go(func() {
		ctx, cancel := rctx, context.CancelFunc(func() {})
		if limit > 0 {
			ctx, cancel = context.WithTimeout(ctx, limit)
		}
		call(ctx)
		cancel()
		l.mu.Lock()
		defer l.mu.Unlock()
		defer r.settled()
		settle()
	})
	return true
}

// settled ends one async Go call: the last one to end while someone waits in Idle wakes
// them. Lock held.
func (r *Realm) settled() {
	r.inflight--
	if r.inflight == 0 && r.idle != nil {
		close(r.idle)
		r.idle = nil
	}
}

// Cancel cancels the contexts of r's async Go calls. Lock held.
func (r *Realm) Cancel() {
	if r.cancel != nil {
		r.cancel()
	}
}

// Idle returns a channel closed when r's last async Go call has settled, or nil when none
// is in flight. Lock held.
func (r *Realm) Idle() <-chan struct{} {
	if r.inflight == 0 {
		return nil // the common case: nothing to wait for, so no channel
	}
	if r.idle == nil {
		r.idle = make(chan struct{})
	}
	return r.idle
}

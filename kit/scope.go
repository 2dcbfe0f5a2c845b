package kit

import (
	"context"
	"sync/atomic"
)

// A scope is one activation of a fiber: everything registered while the fiber is loading
// or active belongs to it. Callbacks into plugin code (listeners, timer callbacks, tool
// bodies) enter the scope before running and exit afterwards; closing the scope stops new
// entries and lets the closer wait until the running ones have left. That wait is what
// makes Dispose return at quiescence.
//
// A fiber that unloads to pending and loads again gets a fresh scope, so a dispatch that
// read an old listener snapshot can never run a listener of a previous activation.
type scope struct {
	// state holds the number of callbacks inside, plus closedBit once closed.
	state    atomic.Int64
	signaled atomic.Bool
	closing  chan struct{} // closed by close: wakes sleepers and blocked waits
	drained  chan struct{} // closed when closed and empty
}

const closedBit = 1 << 62

func newScope() *scope {
	return &scope{closing: make(chan struct{}), drained: make(chan struct{})}
}

// enter reports whether a callback may run. A true result must be paired with exit.
func (s *scope) enter() bool {
	if s.state.Add(1)&closedBit != 0 {
		s.exit()
		return false
	}
	return true
}

func (s *scope) exit() {
	if s.state.Add(-1) == closedBit {
		s.signal()
	}
}

func (s *scope) signal() {
	if s.signaled.CompareAndSwap(false, true) {
		close(s.drained)
	}
}

// open reports whether the scope still accepts entries.
func (s *scope) open() bool { return s.state.Load()&closedBit == 0 }

// close stops new entries. It is idempotent.
func (s *scope) close() {
	for {
		v := s.state.Load()
		if v&closedBit != 0 {
			return
		}
		if s.state.CompareAndSwap(v, v|closedBit) {
			close(s.closing)
			if v == 0 {
				s.signal()
			}
			return
		}
	}
}

// wait blocks until every callback that entered before close has exited, or ctx is done.
func (s *scope) wait(ctx context.Context) error {
	select {
	case <-s.drained:
		return nil
	default:
	}
	select {
	case <-s.drained:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

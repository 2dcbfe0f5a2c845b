package sandbox

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/kit"
)

// A timerShare schedules one activation's timer callbacks so that they cannot crowd other
// mounts off the one JavaScript lock:
//
//   - They run one at a time. A run is reserved (busy) before its callback queues for the
//     lock and released when the callback returns, so an activation has at most one timer
//     callback waiting for or holding the lock, however many of its timers are due. Before,
//     every due timer passed the share's check off the lock and queued: twenty intervals
//     spinning 450 ms each held the lock for nine seconds in a row before the first of
//     them was counted.
//   - They run at most Limits.MaxTimerShare of the wall time. Each run adds the time it
//     held the lock to a debt, which is paid off at MaxTimerShare percent of the wall time;
//     while the debt is CallTimeout or more, no timer callback of the activation starts.
//
// Strikes catch a callback that runs to (or near) its bound; the share catches many short
// ones. The fields are guarded by mu: admit runs on the timers' goroutines without the
// lock, end under it.
type timerShare struct {
	mu     sync.Mutex
	debt   time.Duration // lock time of runs not yet paid off
	paid   time.Time     // when debt was last brought up to date
	busy   bool          // a run is reserved: admitted, and its callback has not returned
	woken  context.Context
	wake   context.CancelFunc // ends woken when the reserved run ends; nil while nobody waits
	warned bool               // the throttling has been reported
}

// pay brings the debt up to now: percent of the time since the last payment pays it off.
// Called with s.mu held.
func (s *timerShare) pay(now time.Time, percent int) {
	if s.debt > 0 {
		s.debt = max(s.debt-now.Sub(s.paid)*time.Duration(percent)/100, 0)
	}
	s.paid = now
}

// admit reserves the activation's next run. It returns a zero wait when the run is
// reserved; otherwise how long to wait before asking again and, while another run is
// reserved, a context that ends when that run ends (wait is then only a cap). first
// reports the activation's first wait for its debt, to be reported.
func (s *timerShare) admit(now time.Time, allowance time.Duration, percent int) (wait time.Duration, woken context.Context, first bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		if s.wake == nil {
			s.woken, s.wake = context.WithCancel(context.Background())
		}
		return allowance, s.woken, false
	}
	s.pay(now, percent)
	if over := s.debt - allowance; over >= 0 {
		first, s.warned = !s.warned, true
		return max(over*100/time.Duration(percent), time.Millisecond), nil, first
	}
	s.busy = true
	return 0, nil, false
}

// end releases the reserved run, which held the lock for used, and wakes the timers
// waiting for it.
func (s *timerShare) end(now time.Time, used time.Duration, percent int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pay(now, percent)
	s.debt += used
	s.busy = false
	if s.wake != nil {
		s.wake()
		s.woken, s.wake = nil, nil
	}
}

// throttle reserves the next run of a timer callback of f, waiting while another of the
// activation's callbacks is reserved or the activation's debt is spent (see timerShare).
// It returns false when the plugin unloaded meanwhile (the callback must not run); on
// true the caller delivers the callback, whose striker (wrap) ends the run. Called on the
// timer's goroutine, without the lock.
func (f *ctxFacade) throttle(t *kit.Timer, method string) bool {
	r := f.r
	l := r.engine
	for {
		wait, woken, first := f.share.admit(time.Now(), l.timeouts.Call, l.limits.MaxTimerShare)
		if wait == 0 {
			return true
		}
		if first {
			msg := fmt.Sprintf("sandbox: the mount's timer callbacks ran more than %d%% of the time (Limits.MaxTimerShare); "+
				"its timers are delayed until they use less (make timer callbacks shorter or less frequent)", l.limits.MaxTimerShare)
			r.logger.Warn(msg, "timer", method)
		}
		ctx := context.Background()
		if woken != nil {
			ctx = woken
		}
		// Sleep ends early when the plugin unloads (an error while ctx is live) or, while
		// another run is reserved, when that run ends (ctx).
		if err := t.Sleep(ctx, f.c, wait); err != nil && ctx.Err() == nil {
			return false
		}
	}
}

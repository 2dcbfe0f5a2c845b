package sandbox

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/kit"
)

// A timerShare measures the wall time one activation's timer callbacks ran, over a sliding
// window of 2×CallTimeout, and delays its timers while that is more than
// Limits.MaxTimerShare of the window. Strikes catch a callback that runs to (or near) its
// bound; the share catches many short ones — intervals that each stay well under the bound
// but together hold the one JavaScript lock most of the time, starving every other mount.
type timerShare struct {
	mu        sync.Mutex
	start     time.Time     // the start of the current bucket
	cur, prev time.Duration // time used in the current and the previous bucket
	warned    bool          // the throttling has been reported
}

// shareWindow is the length of the sliding window (and of each of its two buckets).
func (l *Sandbox) shareWindow() time.Duration { return 2 * l.timeouts.Call }

// roll moves the buckets on to now. Called with s.mu held.
func (s *timerShare) roll(now time.Time, window time.Duration) {
	if s.start.IsZero() {
		s.start = now
		return
	}
	for n := 0; now.Sub(s.start) >= window; n++ {
		if n == 1 { // both buckets are out of the window
			s.prev, s.cur, s.start = 0, 0, now
			return
		}
		s.prev, s.cur = s.cur, 0
		s.start = s.start.Add(window)
	}
}

// used estimates the time used in the last window. Called with s.mu held.
func (s *timerShare) used(now time.Time, window time.Duration) time.Duration {
	rest := window - now.Sub(s.start)
	return time.Duration(float64(s.prev)*float64(rest)/float64(window)) + s.cur
}

// add records d of callback time.
func (s *timerShare) add(d time.Duration, window time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.roll(time.Now(), window)
	s.cur += d
}

// delay returns how long a timer of the activation should wait before running its callback:
// zero while the share is under percent, else the excess (at least a millisecond, at most
// a window). first reports the first delay of the activation, to be reported.
func (s *timerShare) delay(window time.Duration, percent int) (d time.Duration, first bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.roll(now, window)
	excess := s.used(now, window) - window*time.Duration(percent)/100
	if excess <= 0 {
		return 0, false
	}
	first, s.warned = !s.warned, true
	return min(max(excess, time.Millisecond), window), first
}

// throttle delays a timer callback of f while the activation's timer share is spent. It
// returns false when the plugin unloaded meanwhile (the callback must not run). Called on
// the timer's goroutine, without the lock.
func (f *ctxFacade) throttle(t *kit.Timer, method string) bool {
	r := f.r
	l := r.loop
	window := l.shareWindow()
	for {
		d, first := f.share.delay(window, l.limits.MaxTimerShare)
		if d == 0 {
			return true
		}
		if first {
			msg := fmt.Sprintf("sandbox: the mount's timer callbacks ran more than %d%% of the last %v (Limits.MaxTimerShare); "+
				"its timers are delayed until they use less (make timer callbacks shorter or less frequent)", l.limits.MaxTimerShare, window)
			r.logger.Warn(msg, "timer", method)
		}
		if t.Sleep(context.Background(), f.c, d) != nil {
			return false // Sleep ends early when the plugin unloads
		}
	}
}

package runner

import (
	"slices"
	"sync"
	"time"
)

// A Clock schedules the runner's deadlines: a run request's ApprovalTimeout (or
// ClientTimeout when it needs no approval) and the ClientTimeout of the page that started
// a run. Options.Clock nil means real time; a test passes a *ManualClock and moves it past
// a deadline instead of waiting it out. The runner only waits on deadlines and never
// reads the time, so AfterFunc is all a Clock needs.
type Clock interface {
	// AfterFunc calls f once d has passed, as time.AfterFunc does, unless the Timer is
	// stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// A Timer is a deadline a Clock scheduled. *time.Timer is one.
type Timer interface {
	// Stop prevents the call if it has not started, and reports whether it did: false
	// means f has been called or is being called.
	Stop() bool
}

// realClock is time itself: Options.Clock nil.
type realClock struct{}

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// A ManualClock is a Clock for tests: its time moves only when Advance moves it. A
// deadline whose time comes is called during that Advance, on its goroutine, in the
// order the deadlines fall, so when Advance returns every expiry it caused is done (the
// request retracted, its resolution announced, the model told):
//
//	clock := &runner.ManualClock{}
//	r, _ := runner.New(root, &runner.Options{Clock: clock, ApprovalTimeout: time.Minute})
//	// … a model's cordis_run asks for approval …
//	clock.Advance(time.Minute) // the request has expired
//
// A deadline falls at the clock's time when it was scheduled plus its duration, and is
// called once the clock reaches it. The zero ManualClock is ready and reads the zero
// time.Time. Do not call Advance while holding a lock the runner's callers need: the
// expiry runs in it.
type ManualClock struct {
	mu     sync.Mutex
	now    time.Time
	seq    uint64         // scheduling order: ties fall in it
	timers []*manualTimer // pending, in no order
}

type manualTimer struct {
	c   *ManualClock
	at  time.Time
	seq uint64
	f   func()
}

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f for when the clock has moved d past its time now.
func (c *ManualClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &manualTimer{c: c, at: c.now.Add(d), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves the clock d forward and calls, one after another, every deadline that
// falls within it, the clock reading each one's time while it runs. A deadline scheduled
// by one of them is called too if it falls within d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	for {
		t := c.next(end)
		if t == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		c.now = t.at
		c.mu.Unlock()
		t.f()
		c.mu.Lock()
	}
}

// Waiting returns how many deadlines are scheduled and neither called nor stopped.
func (c *ManualClock) Waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// next removes and returns the earliest deadline due by end, or nil. c.mu held.
func (c *ManualClock) next(end time.Time) *manualTimer {
	i := -1
	for j, t := range c.timers {
		if !t.at.After(end) && (i < 0 || t.at.Before(c.timers[i].at) || t.at.Equal(c.timers[i].at) && t.seq < c.timers[i].seq) {
			i = j
		}
	}
	if i < 0 {
		return nil
	}
	t := c.timers[i]
	c.timers = slices.Delete(c.timers, i, i+1)
	return t
}

// Stop unschedules the deadline; false when it was called or stopped already.
func (t *manualTimer) Stop() bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(c.timers, t)
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	return true
}

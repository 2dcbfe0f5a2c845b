package engine

import (
	"sync"
	"time"
)

// The watchdog enforces time bounds for every realm of a lock with one goroutine instead
// of a timer per entry (arming and stopping a runtime timer costs more than a whole
// Go → JS call). Entries link themselves into a list with a deadline read from a coarse
// clock the watchdog advances every tick; each tick it interrupts the realms of expired
// entries. The goroutine starts when an entry begins and none is running, and exits once
// no entry has been active for a couple of ticks, so an idle lock has no goroutine.
type watchdog struct {
	mu      sync.Mutex
	head    *Entry // active entries with a limit or a context, most recent first
	running bool
	tick    time.Duration
	epoch   time.Time
	now     time.Duration // coarse monotonic clock since epoch, advanced every tick
}

// init sets the tick from the smallest bound: a sixteenth of it, between 1 ms and 100 ms.
func (w *watchdog) init(smallest time.Duration) {
	w.epoch = time.Now()
	w.tick = min(max(smallest/16, time.Millisecond), 100*time.Millisecond)
}

// add links e with a deadline limit from now and starts the goroutine if needed.
func (w *watchdog) add(l *Lock, e *Entry, limit time.Duration) {
	w.mu.Lock()
	if !w.running {
		w.running = true
		w.now = time.Since(w.epoch)
		l.wg.Go(func() { w.run(l) })
	}
	e.start = w.now
	if limit > 0 {
		e.deadline = w.now + limit + w.tick // the clock lags by up to a tick: never fire early
	}
	e.next = w.head
	if w.head != nil {
		w.head.prev = e
	}
	w.head = e
	e.linked = true
	w.mu.Unlock()
}

// unlink removes e; afterwards the watchdog no longer fires e. Called with w.mu held.
func (w *watchdog) unlink(e *Entry) {
	if !e.linked {
		return
	}
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		w.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	}
	e.prev, e.next, e.linked = nil, nil, false
}

// elapsed returns the time since e began (measured from the coarse clock, so it may be
// up to a tick more).
func (w *watchdog) elapsed(e *Entry) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Since(w.epoch) - e.start
}

func (w *watchdog) run(l *Lock) {
	t := time.NewTicker(w.tick)
	defer t.Stop()
	idle := 0
	for {
		select {
		case <-t.C:
		case <-l.ctx.Done():
			// The lock is closing: interrupt whatever still runs and stop.
			w.mu.Lock()
			for e := w.head; e != nil; e = e.next {
				e.fireLocked(l.closedCause, false)
			}
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Lock()
		w.now = time.Since(w.epoch)
		if w.head == nil {
			idle++
			if idle >= 2 {
				w.running = false
				w.mu.Unlock()
				return
			}
			w.mu.Unlock()
			continue
		}
		idle = 0
		for e := w.head; e != nil; e = e.next {
			if e.deadline > 0 && w.now >= e.deadline && !e.fired {
				e.fireLocked(errDeadline, true)
			}
		}
		w.mu.Unlock()
	}
}

package engine

import (
	"sync"
	"time"
)

// The watchdog enforces time bounds and allocation budgets for every realm of a lock with
// one goroutine instead of a timer per entry (arming and stopping a runtime timer costs
// more than a whole Go → JS call, and so does reading the heap's counters). Entries link
// themselves into a list with a deadline read from a coarse clock the watchdog advances
// every tick; each tick it interrupts the realms of expired entries and, while an entry
// with a budget is linked, samples the heap and interrupts the realms of entries past
// their budget. The goroutine starts when an entry begins and none is running, and exits
// once no entry has been active for a couple of ticks, so an idle lock has no goroutine.
type watchdog struct {
	mu      sync.Mutex
	head    *Entry // active entries, most recent first
	running bool
	tick    time.Duration
	epoch   time.Time
	now     time.Duration // coarse monotonic clock since epoch, advanced every tick

	read      func(*heapSample) // reads the heap's counters; replaced in tests
	budgeted  int               // linked entries with an allocation budget
	reads     uint64            // heap reads begun
	heap      heapSample        // the last sample
	sampled   bool              // heap holds a sample of this run of the goroutine
	allocAtGC uint64            // heap.allocs before the last collection seen to end (see observe)
}

// maxTick caps the tick. Allocation is sampled once a tick, and goja allocates up to about
// 1.5 GB/s on one core (doubling a string; 0.2–1 GB/s building objects or appending to a
// string, measured): a 10 ms tick keeps what an entry allocates past its budget, and what
// it allocates before its first sample, to about 15 MB each.
const maxTick = 10 * time.Millisecond

// init sets the tick from the smallest bound: a sixteenth of it, between 1 ms and maxTick.
func (w *watchdog) init(smallest time.Duration) {
	w.epoch = time.Now()
	w.tick = min(max(smallest/16, time.Millisecond), maxTick)
	w.read = newHeapReader().read
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
	if e.b.Alloc > 0 {
		w.budgeted++
		e.seen = w.reads
	}
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
	if e.b.Alloc > 0 {
		w.budgeted--
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
			w.stopLocked()
			w.mu.Unlock()
			return
		}
		// Read the heap off w.mu, and only while an entry has a budget: a sandbox without
		// budgets pays nothing for them.
		w.mu.Lock()
		sample := w.budgeted > 0
		if sample {
			w.reads++ // entries linked from now on are based at a later read
		}
		w.mu.Unlock()
		var s heapSample
		if sample {
			w.read(&s)
		}
		w.mu.Lock()
		w.now = time.Since(w.epoch)
		if w.head == nil {
			idle++
			if idle >= 2 {
				w.stopLocked()
				w.mu.Unlock()
				return
			}
			w.mu.Unlock()
			continue
		}
		idle = 0
		if sample {
			w.observe(s)
		}
		for e := w.head; e != nil; e = e.next {
			if e.deadline > 0 && w.now >= e.deadline && !e.fired {
				e.fireLocked(errDeadline, true)
			}
			if sample {
				w.judgeAlloc(e)
			}
		}
		w.mu.Unlock()
	}
}

// stopLocked marks the goroutine stopped; its next run starts with no sample. Called with
// w.mu held.
func (w *watchdog) stopLocked() {
	w.running = false
	w.sampled = false
}

package engine

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// A fakeHeap stands in for runtime/metrics: the test sets the counters, or next changes
// them on every read, and can wait until the watchdog has read them.
type fakeHeap struct {
	mu    sync.Mutex
	s     heapSample
	reads int
	next  func(*heapSample) // if set, applied on every read (after it is taken)
}

// install makes l's watchdog read f. Before any entry begins (the watchdog is not running).
func (f *fakeHeap) install(l *Lock) *fakeHeap {
	l.watch.read = f.read
	return f
}

func (f *fakeHeap) read(out *heapSample) {
	f.mu.Lock()
	defer f.mu.Unlock()
	*out = f.s
	f.reads++
	if f.next != nil {
		f.next(&f.s)
	}
}

func (f *fakeHeap) update(fn func(*heapSample)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(&f.s)
}

// waitReads waits until the watchdog has begun n more reads: after two, it has judged
// every entry by a sample read after the call.
func (f *fakeHeap) waitReads(t *testing.T, n int) {
	t.Helper()
	f.mu.Lock()
	want := f.reads + n
	f.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		f.mu.Lock()
		got := f.reads
		f.mu.Unlock()
		if got >= want {
			return
		}
	}
	t.Fatalf("the watchdog did not read the heap %d more times within 5s", n)
}

// stopCause runs a loop in r (lock held) and returns why the entry e stopped.
func stopCause(t *testing.T, r *Realm, e *Entry) (byBound bool, cause error) {
	t.Helper()
	_, err := r.rt.RunString(`for (;;) {}`)
	var ie *goja.InterruptedError
	if !errors.As(err, &ie) || ie.Value() != any(e) {
		t.Fatalf("RunString = %v, want an interrupt whose value is the entry", err)
	}
	return e.Expiry()
}

// TestAllocBudget pins what an entry is charged: everything allocated since its first
// sample while no collection ran; after collections, what they found kept plus what came
// after (the smaller of the allocation count since the sample before and the heap in use
// over the live heap) — so garbage the collector has freed does not count, and kept
// memory does.
func TestAllocBudget(t *testing.T) {
	const budget, step = 1000, 150
	for _, tt := range []struct {
		name    string
		next    func(*heapSample)
		byAlloc bool
	}{
		{name: "no collection", byAlloc: true, next: func(s *heapSample) {
			s.allocs += step
			s.inUse += step
		}},
		{name: "kept across collections", byAlloc: true, next: func(s *heapSample) {
			s.allocs += step
			s.live += step
			s.inUse = s.live
			s.cycles++
		}},
		{name: "garbage a collection freed", byAlloc: false, next: func(s *heapSample) {
			s.allocs += step
			s.inUse = s.live + step/2 // allocated since the collection ended
			s.cycles++
		}},
		{name: "garbage made faster than a tick", byAlloc: false, next: func(s *heapSample) {
			// Several collections a tick: the allocation count since the last sample is
			// far over the budget, the heap in use is not.
			s.allocs += 5 * budget
			s.inUse = s.live + step
			s.cycles += 3
		}},
		{name: "garbage not yet swept", byAlloc: false, next: func(s *heapSample) {
			// The heap in use holds a lot the last collection found dead; little was
			// allocated since.
			s.allocs += step
			s.inUse = s.live + 5*budget
			s.cycles++
		}},
		{name: "nothing allocated", byAlloc: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := newLock(t)
			f := (&fakeHeap{next: tt.next}).install(l)
			r := newRealm(l, "a")
			l.Lock()
			defer l.Unlock()
			e := r.Begin(context.Background(), Bound{What: "loop", Limit: 200 * time.Millisecond, Alloc: budget})
			byBound, cause := stopCause(t, r, e)
			r.End(e)
			if gotAlloc := errors.Is(cause, ErrAlloc); gotAlloc != tt.byAlloc || byBound == tt.byAlloc {
				t.Errorf("Expiry() = %v, %v after %d heap reads; want stopped by the allocation budget: %v (by the time bound otherwise)",
					byBound, cause, f.reads, tt.byAlloc)
			}
		})
	}
}

// TestAllocNotChargedBeforeEntry pins that an entry answers only for what was allocated
// after it began, even when the watchdog's last sample is older: it is based at the first
// read after Begin.
func TestAllocNotChargedBeforeEntry(t *testing.T) {
	l := newLock(t)
	f := (&fakeHeap{}).install(l)
	r := newRealm(l, "a")
	l.Lock()
	defer l.Unlock()
	first := r.Begin(context.Background(), Bound{What: "first", Limit: time.Minute, Alloc: 1000})
	f.waitReads(t, 2) // the watchdog runs, sampling
	r.End(first)
	f.update(func(s *heapSample) { s.allocs += 1 << 30 }) // someone allocates a lot, then...
	e := r.Begin(context.Background(), Bound{What: "second", Limit: 50 * time.Millisecond, Alloc: 1000})
	byBound, cause := stopCause(t, r, e)
	r.End(e)
	if !byBound || errors.Is(cause, ErrAlloc) {
		t.Errorf("Expiry() = %v, %v; want the time bound: the gigabyte was allocated before the entry began", byBound, cause)
	}
}

// TestAllocNoBudgetNoSampling pins that entries without a budget never read the heap.
func TestAllocNoBudgetNoSampling(t *testing.T) {
	l := newLock(t)
	f := (&fakeHeap{}).install(l)
	r := newRealm(l, "a")
	l.Lock()
	e := r.Begin(context.Background(), Bound{What: "loop", Limit: 30 * time.Millisecond})
	byBound, _ := stopCause(t, r, e)
	r.End(e)
	l.Unlock()
	if !byBound {
		t.Error("the entry was not stopped by its time bound")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reads != 0 {
		t.Errorf("the watchdog read the heap %d times with no budget in force; want 0", f.reads)
	}
}

// TestAllocExcuse pins that what another realm's entry was charged while a chain was out
// in Unlocked is excused from the chain's entry when it ends, up to the entry's own
// budget in all.
func TestAllocExcuse(t *testing.T) {
	const budget = 1000
	for _, tt := range []struct {
		name    string
		others  []uint64 // inline runs of another realm, what each allocates
		own     uint64   // what the entry allocates itself afterwards
		stopped bool
	}{
		{name: "all excused", others: []uint64{900}, own: 300, stopped: false},
		{name: "capped at the entry's budget", others: []uint64{900, 900}, own: 300, stopped: true},
		{name: "own allocation still counts", others: []uint64{900}, own: 1100, stopped: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := newLock(t)
			f := (&fakeHeap{}).install(l)
			a, b := newRealm(l, "a"), newRealm(l, "b")
			l.Lock()
			defer l.Unlock()
			e := a.Begin(context.Background(), Bound{What: "waits in Go", Limit: time.Minute, Alloc: budget})
			f.waitReads(t, 2) // e has its base
			for _, n := range tt.others {
				l.Unlocked(func() {
					l.Lock()
					defer l.Unlock()
					x := b.Begin(context.Background(), Bound{What: "listener", Limit: time.Minute, Alloc: 10 * budget})
					f.waitReads(t, 2)
					f.update(func(s *heapSample) { s.allocs += n })
					f.waitReads(t, 2) // x's charge is sampled before it ends
					b.End(x)
				})
			}
			f.update(func(s *heapSample) { s.allocs += tt.own })
			f.waitReads(t, 2)
			_, err := a.rt.RunString(`1 + 1`)
			var ie *goja.InterruptedError
			if stopped := errors.As(err, &ie); stopped != tt.stopped {
				l.watch.mu.Lock()
				charge := l.watch.charge(e)
				l.watch.mu.Unlock()
				t.Errorf("stopped = %v (%v), want %v: the entry is charged %d of budget %d", stopped, err, tt.stopped, charge, budget)
			}
			a.End(e)
		})
	}
}

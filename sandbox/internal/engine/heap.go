package engine

import (
	"errors"
	"runtime/metrics"
)

// ErrAlloc is the cause ([Entry.Expiry]) of an entry stopped by its allocation budget,
// [Bound].Alloc.
var ErrAlloc = errors.New("allocation budget exceeded")

// A heapSample is what the watchdog reads of the Go heap on a tick: three counters of the
// whole process, which runtime/metrics keeps without stopping the world (a read costs
// under a microsecond, so it is done per tick, never per entry).
type heapSample struct {
	allocs uint64 // /gc/heap/allocs:bytes: bytes allocated since the process began
	live   uint64 // /gc/heap/live:bytes: bytes the last completed collection found live
	cycles uint64 // /gc/cycles/total:gc-cycles: collections completed
	inUse  uint64 // /memory/classes/heap/objects:bytes: objects not yet freed, live or not
}

// heapMetrics are the names read into a heapSample, in its field order.
var heapMetrics = [...]string{"/gc/heap/allocs:bytes", "/gc/heap/live:bytes", "/gc/cycles/total:gc-cycles", "/memory/classes/heap/objects:bytes"}

// A heapReader reads heapSamples without allocating. Only the watchdog goroutine uses it.
type heapReader struct {
	s [len(heapMetrics)]metrics.Sample
}

func newHeapReader() *heapReader {
	h := &heapReader{}
	for i, name := range heapMetrics {
		h.s[i].Name = name
	}
	return h
}

func (h *heapReader) read(out *heapSample) {
	metrics.Read(h.s[:])
	out.allocs, out.live, out.cycles, out.inUse = h.s[0].Value.Uint64(), h.s[1].Value.Uint64(), h.s[2].Value.Uint64(), h.s[3].Value.Uint64()
}

// observe records a new sample. A collection that ended since the previous sample makes
// that sample's allocation count the mark of "allocated since the last collection": an
// upper bound, since the collection ended after it. Called with w.mu held.
func (w *watchdog) observe(s heapSample) {
	if w.sampled && s.cycles != w.heap.cycles {
		w.allocAtGC = w.heap.allocs
	}
	w.heap, w.sampled = s, true
}

// judgeAlloc gives e its base at the first sample after it began, and afterwards stops it
// once its charge passes its budget. Called with w.mu held, after observe.
func (w *watchdog) judgeAlloc(e *Entry) {
	switch {
	case e.b.Alloc == 0 || e.fired:
	case !e.based:
		if e.seen < w.reads { // the sample was read after e began
			e.based, e.base = true, w.heap
		}
	case w.charge(e) > e.b.Alloc:
		e.fireLocked(ErrAlloc, false)
	}
}

// charge returns the heap growth e answers for: the bytes allocated since its base sample
// that no collection has shown to be garbage, less what was excused (see Lock.excuse).
// With no collection since the base that is everything allocated since; after one, it is
// at most the growth of the live heap the collection found plus what was allocated after
// it — so an entry that only makes garbage is charged the garbage since the last
// collection, and one that keeps what it makes is charged all of it. Everything is of the
// whole process: see the package doc, "Memory". Called with w.mu held.
//
// What was allocated after the last collection is bounded two ways, and the smaller
// taken: by the allocation count since the sample before the collection was seen to end
// (which over-counts by up to a tick of allocation: too much where garbage is made fast),
// and by the heap in use less the live heap the collection found (which over-counts by
// the garbage not yet swept).
func (w *watchdog) charge(e *Entry) uint64 {
	if !e.based {
		return 0
	}
	s := &w.heap
	c := s.allocs - e.base.allocs
	if s.cycles != e.base.cycles {
		// allocAtGC was taken after e's base: the cycle change was seen after it.
		since := min(s.allocs-w.allocAtGC, sub0(s.inUse, s.live))
		c = min(c, sub0(s.live, e.base.live)+since)
	}
	return sub0(c, e.allocExcused)
}

// sub0 is a-b, or 0 when b is larger.
func sub0(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

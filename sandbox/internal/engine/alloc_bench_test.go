package engine

import (
	"context"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// BenchmarkEntryAllocBudget is the allocation budget's cost: entries into JavaScript back
// to back with a budget of 256 MiB (the watchdog then reads the heap's counters every
// tick) and with none, beside their floor — the same goja call under a plain mutex, with
// no entry around it. The three sides run interleaved, batch by batch in a rotating order
// (docs/PERFORMANCE.md, "Method"), and the figures are the medians of the batches: ns,
// bytes and objects allocated per call of each side, and the ratios budget/none and
// none/floor. Two calls: one that returns at once (what an event delivery or a small tool
// costs), and one that builds a thousand objects (where the heap moves while the watchdog
// reads it).
func BenchmarkEntryAllocBudget(b *testing.B) {
	for _, c := range []struct{ name, src string }{
		{"empty", `(function () { return 1 })`},
		{"objects", `(function () { const a = []; for (let i = 0; i < 1000; i++) a.push({ i }); return a.length })`},
	} {
		b.Run(c.name, func(b *testing.B) {
			l := &Lock{}
			l.Init(time.Second, errClosed) // the default sandbox's tick: 10 ms
			b.Cleanup(func() { _ = l.Close(b.Context()) })
			call := func(r *Realm) goja.Callable {
				v, err := r.rt.RunString(c.src)
				f, ok := goja.AssertFunction(v)
				if err != nil || !ok {
					b.Fatalf("%s: %v", c.src, err)
				}
				return f
			}
			floor := &Realm{}
			floor.Init(l, goja.New(), "floor")
			ff := call(floor)
			side := func(alloc uint64) func() {
				r := &Realm{}
				r.Init(l, goja.New(), "r")
				f, bd := call(r), Bound{What: "bench", Limit: time.Second, Alloc: alloc}
				return func() {
					l.Lock()
					e := r.Begin(context.Background(), bd)
					if _, err := f(goja.Undefined()); err != nil {
						b.Fatal(err)
					}
					r.End(e)
					l.Unlock()
				}
			}
			sides := []struct {
				name string
				run  func()
			}{
				{"floor", func() {
					l.Lock()
					if _, err := ff(goja.Undefined()); err != nil {
						b.Fatal(err)
					}
					l.Unlock()
				}},
				{"none", side(0)},
				{"budget", side(256 << 20)},
			}
			// A batch of n calls takes about 5 ms on the floor.
			n := 1
			for {
				start := time.Now()
				for range n {
					sides[0].run()
				}
				if time.Since(start) >= 5*time.Millisecond {
					break
				}
				n *= 2
			}
			heap := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}}
			var ns, bytes, objs [3][]float64
			round := 0
			for b.Loop() {
				for k := range sides {
					i := (k + round) % len(sides)
					metrics.Read(heap)
					b0, o0 := heap[0].Value.Uint64(), heap[1].Value.Uint64()
					start := time.Now()
					for range n {
						sides[i].run()
					}
					d := time.Since(start)
					metrics.Read(heap)
					ns[i] = append(ns[i], float64(d.Nanoseconds())/float64(n))
					bytes[i] = append(bytes[i], float64(heap[0].Value.Uint64()-b0)/float64(n))
					objs[i] = append(objs[i], float64(heap[1].Value.Uint64()-o0)/float64(n))
				}
				round++
			}
			med := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
			var m [3]float64
			for i, s := range sides {
				m[i] = med(ns[i])
				b.ReportMetric(m[i], s.name+"-ns/call")
				b.ReportMetric(med(bytes[i]), s.name+"-B/call")
				b.ReportMetric(med(objs[i]), s.name+"-allocs/call")
			}
			b.ReportMetric(m[2]/m[1], "budget/none")
			b.ReportMetric(m[1]/m[0], "none/floor")
			b.ReportMetric(m[2]/m[0], "budget/floor")
		})
	}
}

package bind

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// BenchmarkValue is what a Result of a basic type costs through bind — the realm's
// runtime reached through sandbox/internal/link, as every generated result is built —
// beside its floor, goja's ToValue on the runtime itself. The two sides run interleaved,
// batch by batch in a rotating order, inside one Realm.Do (the lock held, as in a
// binding); the figures are the medians of the batches and their ratio.
func BenchmarkValue(b *testing.B) {
	m := runWith(b, nil, `return { name: 'probe', apply() {} }`)
	r := m.Realm()
	const n = 4096
	var sink goja.Value
	err := r.Do(context.Background(), func(rt *goja.Runtime) error {
		sides := []func(){
			func() {
				for i := range n {
					sink = rt.ToValue(i)
				}
			},
			func() {
				for i := range n {
					sink = Value(r, i)
				}
			},
		}
		var ns [2][]float64
		round := 0
		for b.Loop() {
			for k := range sides {
				i := (k + round) % len(sides)
				start := time.Now()
				sides[i]()
				ns[i] = append(ns[i], float64(time.Since(start).Nanoseconds())/n)
			}
			round++
		}
		med := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
		floor, bind := med(ns[0]), med(ns[1])
		b.ReportMetric(floor, "floor-ns/value")
		b.ReportMetric(bind, "bind-ns/value")
		b.ReportMetric(bind/floor, "bind/floor")
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	_ = sink
}

package main

import (
	"math"
	"slices"
	"time"
)

// percentile returns the nearest-rank p-quantile (0 < p ≤ 1) of xs, as the anchors do.
// xs need not be sorted; it is not modified.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func median(xs []float64) float64 { return percentile(xs, 0.5) }

// us converts durations to microseconds.
func us(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d.Nanoseconds()) / 1e3
	}
	return out
}

// A spread is the summary of one quantity over the rounds: median (min–max).
type spread struct{ med, lo, hi float64 }

func spreadOf(xs []float64) spread {
	if len(xs) == 0 {
		return spread{math.NaN(), math.NaN(), math.NaN()}
	}
	return spread{median(xs), slices.Min(xs), slices.Max(xs)}
}

// batcher times call micro-benchmarks the way the anchors' calls bench does — calibrate a
// batch of about ms milliseconds, run warm-up batches, take the median batch's cost per
// operation — except that the series of one figure are interleaved batch by batch (in an
// order that alternates), so load that comes and goes on a shared machine hits all of
// them alike.
type batcher struct {
	ms      float64 // batch length
	warm    int     // warm-up batches
	batches int     // measured batches
}

// calibrate returns the number of operations of fn that take about b.ms.
func (b batcher) calibrate(fn func(iters int) error) (int, error) {
	iters := 16
	for {
		t0 := time.Now()
		if err := fn(iters); err != nil {
			return 0, err
		}
		dt := float64(time.Since(t0).Nanoseconds()) / 1e6
		if dt >= b.ms/2 || iters >= 1<<30 {
			return max(1, int(float64(iters)*b.ms/max(dt, 1e-3))), nil
		}
		iters *= 2
	}
}

// interleave returns the median ns per operation of each fn, where fn(iters) runs iters
// operations.
func (b batcher) interleave(fns ...func(iters int) error) ([]float64, error) {
	iters := make([]int, len(fns))
	for i, fn := range fns {
		n, err := b.calibrate(fn)
		if err != nil {
			return nil, err
		}
		iters[i] = n
	}
	per := make([][]float64, len(fns))
	for batch := range b.warm + b.batches {
		for j := range fns {
			i := j
			if batch%2 == 1 {
				i = len(fns) - 1 - j
			}
			t0 := time.Now()
			if err := fns[i](iters[i]); err != nil {
				return nil, err
			}
			if batch >= b.warm {
				per[i] = append(per[i], float64(time.Since(t0).Nanoseconds())/float64(iters[i]))
			}
		}
	}
	out := make([]float64, len(fns))
	for i := range per {
		out[i] = median(per[i])
	}
	return out, nil
}

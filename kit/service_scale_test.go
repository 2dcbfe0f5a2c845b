package kit_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
)

// TestManyServicesTeardownLinear: a fiber that provided tens of thousands of services is
// disposed in time linear in their number (removing each one used to scan the fiber's whole
// list of keys, quadratic in all: seconds at this size). Four times the services must take
// at most eight times as long (linear is four, quadratic sixteen); each size is timed at
// its best of three,
// so a loaded machine slows both sides rather than deciding the outcome.
func TestManyServicesTeardownLinear(t *testing.T) {
	n := 40000
	if testing.Short() {
		n = 10000
	}
	small, large := bestDispose(t, n/4), bestDispose(t, n)
	ratio := float64(large) / float64(small)
	t.Logf("%d services: %v, %d: %v (%.1f×)", n/4, small, n, large, ratio)
	if ratio > 8 {
		t.Errorf("disposing %d services took %v, %d took %v: %.1f× for 4× the services, want linear (4×; quadratic is 16×)", n, large, n/4, small, ratio)
	}
}

// bestDispose provides n services in one fiber, disposes it, checks nothing is left, and
// returns the fastest of three disposals.
func bestDispose(t *testing.T, n int) time.Duration {
	t.Helper()
	best := time.Duration(1<<63 - 1)
	for range 3 {
		root := newRoot(t, nil)
		f := root.Plugin(plugin("many", nil, func(c *kit.Context) error {
			for i := range n {
				if err := c.Provide("svc-"+strconv.Itoa(i), i); err != nil {
					return err
				}
			}
			return nil
		}))
		mustState(t, f, kit.StateActive)
		if got := len(f.Provides()); got != n {
			t.Fatalf("provides %d services, want %d", got, n)
		}
		start := time.Now()
		if err := f.Dispose(context.Background()); err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start))
		if got := len(f.Provides()); got != 0 {
			t.Errorf("%d services left after dispose", got)
		}
		if _, ok := root.Get("svc-0"); ok {
			t.Error("svc-0 still provided")
		}
	}
	return best
}

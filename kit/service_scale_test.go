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
// list of keys, quadratic in all: seconds at this size).
func TestManyServicesTeardownLinear(t *testing.T) {
	n := 40000
	if testing.Short() {
		n = 10000
	}
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
	if d := time.Since(start); d > time.Second {
		t.Errorf("disposing %d services took %v, want well under a second", n, d)
	}
	if got := len(f.Provides()); got != 0 {
		t.Errorf("%d services left after dispose", got)
	}
	if _, ok := root.Get("svc-0"); ok {
		t.Error("svc-0 still provided")
	}
}

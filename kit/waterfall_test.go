package kit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

// A listener that calls next many times runs the rest of the chain once: with ten such
// listeners in a row the default runs once, not 2^10 times.
func TestWaterfallNextRunsTheChainOnce(t *testing.T) {
	root := newRoot(t, nil)
	const n = 10
	for i := range n {
		listen(t, root, fmt.Sprintf("greedy-%d", i), func(c *kit.Context) error {
			_, err := request.On(c, func(ctx context.Context, p string, next func() (string, error)) (string, error) {
				first, err := next()
				if again, err2 := next(); again != first || !errors.Is(err2, err) {
					t.Errorf("second next() = %q, %v; want the first call's %q, %v", again, err2, first, err)
				}
				next()
				return first, err
			})
			return err
		})
	}
	var runs atomic.Int32
	got, err := request.Emit(context.Background(), root, "p", func() (string, error) {
		runs.Add(1)
		return "default", nil
	})
	if got != "default" || err != nil || runs.Load() != 1 {
		t.Fatalf("Emit = %q, %v; the default ran %d times, want once", got, err, runs.Load())
	}

	// The replay is per emit: the next emit runs the chain again.
	request.Emit(context.Background(), root, "p", func() (string, error) { runs.Add(1); return "", nil })
	if runs.Load() != 2 {
		t.Fatalf("the second emit ran the default %d times in all, want 2", runs.Load())
	}
}

// The error of the rest of the chain is replayed too.
func TestWaterfallNextReplaysTheError(t *testing.T) {
	root := newRoot(t, nil)
	var seen []error
	listen(t, root, "twice", func(c *kit.Context) error {
		_, err := request.On(c, func(ctx context.Context, p string, next func() (string, error)) (string, error) {
			_, err1 := next()
			_, err2 := next()
			seen = append(seen, err1, err2)
			return "", err2
		})
		return err
	})
	boom := errors.New("boom")
	var runs int
	_, err := request.Emit(context.Background(), root, "p", func() (string, error) { runs++; return "", boom })
	if runs != 1 || !errors.Is(err, boom) || len(seen) != 2 || seen[0] != seen[1] {
		t.Fatalf("default ran %d times; err %v; next errors %v", runs, err, seen)
	}
}

// A next called again from inside the rest of the chain (stashed by the listener and
// called by a later one) or after the listener returned is refused, not run.
func TestWaterfallNextOutOfTurn(t *testing.T) {
	root := newRoot(t, nil)
	var stashed func() (string, error)
	listen(t, root, "stasher", func(c *kit.Context) error {
		_, err := request.On(c, func(ctx context.Context, p string, next func() (string, error)) (string, error) {
			stashed = next
			if p == "veto" {
				return "vetoed", nil
			}
			return next()
		})
		return err
	})
	var reentered error
	listen(t, root, "reenter", func(c *kit.Context) error {
		_, err := request.On(c, func(ctx context.Context, p string, next func() (string, error)) (string, error) {
			if p == "reenter" {
				_, reentered = stashed()
			}
			return next()
		})
		return err
	})
	var runs int
	def := func() (string, error) { runs++; return "default", nil }
	if got, err := request.Emit(context.Background(), root, "reenter", def); got != "default" || err != nil || runs != 1 {
		t.Fatalf("Emit = %q, %v, default ran %d times", got, err, runs)
	}
	if !errors.Is(reentered, kit.ErrNext) || !strings.Contains(reentered.Error(), "before its first call returned") {
		t.Fatalf("re-entrant next: %v, want ErrNext", reentered)
	}

	runs = 0
	if got, _ := request.Emit(context.Background(), root, "veto", def); got != "vetoed" {
		t.Fatalf("veto: %q", got)
	}
	if got, err := stashed(); got != "" || !errors.Is(err, kit.ErrNext) || !strings.Contains(err.Error(), "after it returned") || runs != 0 {
		t.Fatalf("next after the listener returned: %q, %v; default ran %d times", got, err, runs)
	}
}

// WithoutListenersOf passes over the listeners of a fiber and of every fiber below it,
// in waterfall, serial and parallel emits; other listeners still run.
func TestWithoutListenersOf(t *testing.T) {
	root := newRoot(t, nil)
	var ran []string
	group := listen(t, root, "group", func(*kit.Context) error { return nil })
	nested := group.Context().Plugin(plugin("inner", nil, func(c *kit.Context) error { return nil }))
	mustState(t, nested, kit.StateActive)
	for _, f := range []*kit.Fiber{root.Fiber(), group, nested.Context().Plugin(plugin("deep", nil, func(*kit.Context) error { return nil }))} {
		mustState(t, f, kit.StateActive)
		name := f.Name()
		if _, err := request.On(f.Context(), func(ctx context.Context, p string, next func() (string, error)) (string, error) {
			ran = append(ran, "waterfall:"+name)
			return "veto by " + name, nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := check.On(f.Context(), func(ctx context.Context, p string) (string, error) {
			ran = append(ran, "serial:"+name)
			return "", nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := flush.On(f.Context(), func(ctx context.Context, p int) error {
			return fmt.Errorf("parallel:%s", name)
		}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := kit.WithoutListenersOf(context.Background(), group)
	got, err := request.Emit(ctx, root, "p", nil)
	check.Emit(ctx, root, "p")
	perr := flush.Emit(ctx, root, 1)
	if got != "veto by root" || err != nil {
		t.Errorf("waterfall = %q, %v; want the root's listener only", got, err)
	}
	if fmt.Sprint(ran) != "[waterfall:root serial:root]" {
		t.Errorf("listeners that ran: %v", ran)
	}
	if perr == nil || perr.Error() != `listener of "test/flush" in plugin "root": parallel:root` {
		t.Errorf("parallel = %v; want the root's listener only", perr)
	}

	// Exclusions add up; the root's subtree is everything.
	ran = nil
	all := kit.WithoutListenersOf(ctx, root.Fiber())
	if got, _ := request.Emit(all, root, "p", func() (string, error) { return "default", nil }); got != "default" || len(ran) != 0 {
		t.Errorf("everything excluded: %q, ran %v", got, ran)
	}
}

package kit_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

var (
	flush   = kit.NewParallel[int]("test/flush")
	check   = kit.NewSerial[string, string]("test/check")
	pick    = kit.NewBail[string, int]("test/pick")
	request = kit.NewWaterfall[string, string]("test/request")
)

// listen mounts a plugin whose apply registers one listener via reg.
func listen(t *testing.T, root *kit.Context, name string, reg func(c *kit.Context) error) *kit.Fiber {
	t.Helper()
	f := root.Plugin(plugin(name, nil, reg))
	mustState(t, f, kit.StateActive)
	return f
}

func TestEmitMode(t *testing.T) {
	buf := &syncBuf{}
	root := newRoot(t, buf)
	var got []string
	listen(t, root, "a", func(c *kit.Context) error {
		_, err := tick.On(c, func(n int) { got = append(got, "a") })
		return err
	})
	listen(t, root, "panicky", func(c *kit.Context) error {
		_, err := tick.On(c, func(n int) { panic("listener exploded") })
		return err
	})
	listen(t, root, "b", func(c *kit.Context) error {
		_, err := tick.On(c, func(n int) { got = append(got, "b") })
		return err
	})
	tick.Emit(root, 1)
	if strings.Join(got, ",") != "a,b" {
		t.Fatalf("listeners ran %v, want [a b] despite the panic between them", got)
	}
	if log := buf.String(); !strings.Contains(log, "listener exploded") || !strings.Contains(log, `\"panicky\"`) {
		t.Fatalf("panic not reported with the plugin name; log:\n%s", log)
	}
}

func TestEmitDuringListenerRegistrationUsesSnapshot(t *testing.T) {
	root := newRoot(t, nil)
	var calls int
	f := listen(t, root, "adder", func(c *kit.Context) error { return nil })
	_, err := tick.On(f.Context(), func(int) {
		calls++
		// Registering during dispatch must not affect the running dispatch.
		tick.On(f.Context(), func(int) { calls += 100 })
	})
	if err != nil {
		t.Fatal(err)
	}
	tick.Emit(root, 1)
	if calls != 1 {
		t.Fatalf("calls = %d, want 1 (the new listener must not join the running dispatch)", calls)
	}
}

func TestParallelMode(t *testing.T) {
	root := newRoot(t, nil)
	if err := flush.Emit(context.Background(), root, 1); err != nil {
		t.Fatalf("no listeners: %v", err)
	}
	started := make(chan struct{}, 2)
	both := make(chan struct{})
	for _, name := range []string{"p1", "p2"} {
		listen(t, root, name, func(c *kit.Context) error {
			_, err := flush.On(c, func(ctx context.Context, n int) error {
				started <- struct{}{}
				<-both // both listeners must be running at once
				return errors.New(name + " failed")
			})
			return err
		})
	}
	go func() { <-started; <-started; close(both) }()
	err := flush.Emit(context.Background(), root, 1)
	if err == nil || !strings.Contains(err.Error(), "p1 failed") || !strings.Contains(err.Error(), "p2 failed") {
		t.Fatalf("err = %v, want both listener errors joined", err)
	}
}

func TestParallelPanicBecomesError(t *testing.T) {
	root := newRoot(t, nil)
	listen(t, root, "panics", func(c *kit.Context) error {
		_, err := flush.On(c, func(context.Context, int) error { panic("parallel boom") })
		return err
	})
	if err := flush.Emit(context.Background(), root, 1); !errors.Is(err, kit.ErrPanic) || !strings.Contains(err.Error(), "parallel boom") {
		t.Fatalf("err = %v, want ErrPanic with the panic value", err)
	}
}

func TestSerialMode(t *testing.T) {
	for _, tc := range []struct {
		name      string
		results   []string // "" = no bail; "!x" = error x
		want      string
		wantErr   string
		wantCalls int
	}{
		{"none bail", []string{"", ""}, "", "", 2},
		{"first bail wins", []string{"", "stop", "later"}, "stop", "", 2},
		{"error stops", []string{"!bad", "later"}, "", "bad", 1},
		{"no listeners", nil, "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newRoot(t, nil)
			calls := 0
			for i, r := range tc.results {
				listen(t, root, "s"+string(rune('0'+i)), func(c *kit.Context) error {
					_, err := check.On(c, func(ctx context.Context, p string) (string, error) {
						calls++
						if strings.HasPrefix(r, "!") {
							return "", errors.New(r[1:])
						}
						return r, nil
					})
					return err
				})
			}
			got, err := check.Emit(context.Background(), root, "x")
			if got != tc.want || calls != tc.wantCalls {
				t.Fatalf("got %q after %d calls, want %q after %d", got, calls, tc.want, tc.wantCalls)
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestBailMode(t *testing.T) {
	root := newRoot(t, nil)
	if got := pick.Emit(root, "x"); got != 0 {
		t.Fatalf("no listeners: %d", got)
	}
	listen(t, root, "zero", func(c *kit.Context) error {
		_, err := pick.On(c, func(string) int { return 0 })
		return err
	})
	listen(t, root, "panics", func(c *kit.Context) error {
		_, err := pick.On(c, func(string) int { panic("bail boom") })
		return err
	})
	listen(t, root, "seven", func(c *kit.Context) error {
		_, err := pick.On(c, func(s string) int { return 7 })
		return err
	})
	listen(t, root, "nine", func(c *kit.Context) error {
		_, err := pick.On(c, func(s string) int { t.Error("listener after the bail ran"); return 9 })
		return err
	})
	if got := pick.Emit(root, "x"); got != 7 {
		t.Fatalf("got %d, want 7", got)
	}
}

func TestWaterfallMode(t *testing.T) {
	def := func() (string, error) { return "default", nil }
	t.Run("no listeners runs the default", func(t *testing.T) {
		root := newRoot(t, nil)
		if got, err := request.Emit(context.Background(), root, "p", def); got != "default" || err != nil {
			t.Fatalf("%q, %v", got, err)
		}
		if got, err := request.Emit(context.Background(), root, "p", nil); got != "" || err != nil {
			t.Fatalf("nil default: %q, %v", got, err)
		}
	})
	t.Run("listeners transform in order", func(t *testing.T) {
		root := newRoot(t, nil)
		for _, tag := range []string{"a", "b"} {
			listen(t, root, tag, func(c *kit.Context) error {
				_, err := request.On(c, func(ctx context.Context, p string, next func() (string, error)) (string, error) {
					r, err := next()
					return tag + "(" + r + ")", err
				})
				return err
			})
		}
		if got, _ := request.Emit(context.Background(), root, "p", def); got != "a(b(default))" {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("not calling next short-circuits", func(t *testing.T) {
		root := newRoot(t, nil)
		listen(t, root, "veto", func(c *kit.Context) error {
			_, err := request.On(c, func(ctx context.Context, p string, next func() (string, error)) (string, error) {
				return "vetoed", nil
			})
			return err
		})
		listen(t, root, "never", func(c *kit.Context) error {
			_, err := request.On(c, func(ctx context.Context, p string, next func() (string, error)) (string, error) {
				t.Error("listener after a veto ran")
				return next()
			})
			return err
		})
		got, err := request.Emit(context.Background(), root, "p", func() (string, error) {
			t.Error("default ran after a veto")
			return "", nil
		})
		if got != "vetoed" || err != nil {
			t.Fatalf("%q, %v", got, err)
		}
	})
	t.Run("panic becomes an error", func(t *testing.T) {
		root := newRoot(t, nil)
		listen(t, root, "boom", func(c *kit.Context) error {
			_, err := request.On(c, func(context.Context, string, func() (string, error)) (string, error) { panic("wf boom") })
			return err
		})
		if _, err := request.Emit(context.Background(), root, "p", def); !errors.Is(err, kit.ErrPanic) {
			t.Fatalf("err = %v, want ErrPanic", err)
		}
	})
}

// Listeners removed in any order (compaction runs as the dead accumulate) never run again,
// and every other listener keeps running exactly once per emit, in registration order.
func TestListenerRemovalCompaction(t *testing.T) {
	root := newRoot(t, nil)
	f := listen(t, root, "many", noop)
	const n = 200
	var got []int
	offs := make([]func(), n)
	for i := range n {
		off, err := tick.On(f.Context(), func(int) { got = append(got, i) })
		if err != nil {
			t.Fatal(err)
		}
		offs[i] = off
	}
	removed := map[int]bool{}
	for k := range n - 10 {
		i := (k * 37) % n // a fixed permutation of 0..n-1
		offs[i]()
		removed[i] = true
		got = got[:0]
		tick.Emit(root, 0)
		prev := -1
		for _, x := range got {
			if removed[x] || x <= prev {
				t.Fatalf("after removing %d listeners: ran %v", k+1, got)
			}
			prev = x
		}
		if len(got) != n-k-1 {
			t.Fatalf("after removing %d listeners: %d ran, want %d", k+1, len(got), n-k-1)
		}
	}
}

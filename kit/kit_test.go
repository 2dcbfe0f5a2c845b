package kit_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newRoot returns a runtime whose logger writes into buf (nil discards) and disposes it
// when the test ends.
func newRoot(t testing.TB, buf io.Writer) *kit.Context {
	t.Helper()
	if buf == nil {
		buf = io.Discard
	}
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(buf, nil))})
	t.Cleanup(func() {
		if err := root.Fiber().Dispose(context.Background()); err != nil {
			t.Errorf("disposing root: %v", err)
		}
	})
	return root
}

func plugin(name string, inject []string, apply func(*kit.Context) error) *kit.Plugin {
	return &kit.Plugin{Name: name, Inject: inject, Apply: apply}
}

func noop(*kit.Context) error { return nil }

var tick = kit.NewEvent[int]("test/tick")

// syncBuf is a goroutine-safe log sink.
type syncBuf struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}

func mustState(t *testing.T, f *kit.Fiber, want kit.State) {
	t.Helper()
	if got := f.State(); got != want {
		t.Fatalf("fiber %s: state %s, want %s (err: %v)", f.Name(), got, want, f.Err())
	}
}

func TestPluginLifecycle(t *testing.T) {
	root := newRoot(t, nil)
	var got []int
	f := root.Plugin(plugin("counter", nil, func(c *kit.Context) error {
		_, err := tick.On(c, func(n int) { got = append(got, n) })
		return err
	}))
	mustState(t, f, kit.StateActive)
	tick.Emit(root, 1)
	if err := f.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustState(t, f, kit.StateDisposed)
	tick.Emit(root, 2)
	if len(got) != 1 || got[0] != 1 {
		t.Fatalf("listener saw %v, want [1]", got)
	}
	if err := f.Dispose(context.Background()); err != nil {
		t.Fatalf("second Dispose: %v, want nil (no-op)", err)
	}
	for _, fi := range root.Fibers() {
		if fi.Name == "counter" {
			t.Fatalf("disposed fiber still listed: %+v", fi)
		}
	}
}

func TestApplyFailureRollsBack(t *testing.T) {
	for _, tc := range []struct {
		name  string
		apply func(*kit.Context) error
		want  string
	}{
		{"error", func(c *kit.Context) error { return errors.New("boom") }, "boom"},
		{"panic", func(c *kit.Context) error { panic("kaboom") }, "kaboom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newRoot(t, nil)
			var disposed []string
			f := root.Plugin(plugin("bad", nil, func(c *kit.Context) error {
				if _, err := tick.On(c, func(int) { t.Error("listener of failed plugin ran") }); err != nil {
					return err
				}
				if err := c.Provide("thing", 1); err != nil {
					return err
				}
				tools, _ := kit.ToolsService.Get(c)
				if _, err := tools.Register(c, echoTool("bad_tool")); err != nil {
					return err
				}
				c.Plugin(plugin("child", nil, func(c *kit.Context) error {
					return c.Effect(func() error { disposed = append(disposed, "child"); return nil })
				}))
				if err := c.Effect(func() error { disposed = append(disposed, "parent"); return nil }); err != nil {
					return err
				}
				return tc.apply(c)
			}))
			mustState(t, f, kit.StateFailed)
			if err := f.Err(); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"bad"`) {
				t.Fatalf("Err() = %v, want it to name the plugin and contain %q", err, tc.want)
			}
			if err := f.Await(context.Background()); err == nil {
				t.Fatal("Await of a failed fiber returned nil")
			}
			tick.Emit(root, 1)
			if _, ok := root.Get("thing"); ok {
				t.Error("service of failed plugin still provided")
			}
			tools, _ := kit.ToolsService.Get(root)
			if _, ok := tools.Get("bad_tool"); ok {
				t.Error("tool of failed plugin still registered")
			}
			if strings.Join(disposed, ",") != "parent,child" {
				t.Errorf("disposers ran %v, want newest first: [parent child]", disposed)
			}
		})
	}
}

func TestDisposeOrderNewestFirstChildrenFirst(t *testing.T) {
	root := newRoot(t, nil)
	var order []string
	rec := func(s string) func() error { return func() error { order = append(order, s); return nil } }
	f := root.Plugin(plugin("parent", nil, func(c *kit.Context) error {
		c.Effect(rec("parent-1"))
		c.Plugin(plugin("child", nil, func(c *kit.Context) error {
			c.Effect(rec("child-1"))
			c.Plugin(plugin("grandchild", nil, func(c *kit.Context) error { return c.Effect(rec("grandchild")) }))
			return c.Effect(rec("child-2"))
		}))
		return c.Effect(rec("parent-2"))
	}))
	mustState(t, f, kit.StateActive)
	if err := f.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "parent-2,child-2,grandchild,child-1,parent-1"
	if got := strings.Join(order, ","); got != want {
		t.Fatalf("dispose order %s, want %s", got, want)
	}
}

func TestBadInput(t *testing.T) {
	root := newRoot(t, nil)
	t.Run("nil plugin panics", func(t *testing.T) {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "nil *Plugin") {
				t.Fatalf("recover() = %v, want a panic naming the nil plugin", r)
			}
		}()
		root.Plugin(nil)
	})
	t.Run("empty name", func(t *testing.T) {
		f := root.Plugin(plugin("", nil, noop))
		mustState(t, f, kit.StateFailed)
		if !strings.Contains(f.Err().Error(), "no Name") {
			t.Fatalf("err = %v", f.Err())
		}
	})
	t.Run("empty inject key", func(t *testing.T) {
		f := root.Plugin(plugin("x", []string{""}, noop))
		mustState(t, f, kit.StateFailed)
	})
	t.Run("register on disposed fiber", func(t *testing.T) {
		var saved *kit.Context
		f := root.Plugin(plugin("gone", nil, func(c *kit.Context) error { saved = c; return nil }))
		f.Dispose(context.Background())
		if _, err := tick.On(saved, func(int) {}); !errors.Is(err, kit.ErrInactive) {
			t.Errorf("On after dispose: %v, want ErrInactive", err)
		}
		if err := saved.Provide("k", 1); !errors.Is(err, kit.ErrInactive) {
			t.Errorf("Provide after dispose: %v, want ErrInactive", err)
		}
		if _, ok := root.Get("k"); ok {
			t.Error("rejected Provide left the service behind")
		}
		if err := saved.Effect(func() error { return nil }); !errors.Is(err, kit.ErrInactive) {
			t.Errorf("Effect after dispose: %v, want ErrInactive", err)
		}
		child := saved.Plugin(plugin("late-child", nil, noop))
		mustState(t, child, kit.StateFailed)
		if !errors.Is(child.Err(), kit.ErrInactive) {
			t.Errorf("child of disposed fiber: %v, want ErrInactive", child.Err())
		}
	})
	t.Run("nil context", func(t *testing.T) {
		if _, err := tick.On(nil, func(int) {}); !errors.Is(err, kit.ErrNilContext) {
			t.Errorf("On(nil): %v", err)
		}
		if err := flush.Emit(context.Background(), nil, 1); !errors.Is(err, kit.ErrNilContext) {
			t.Errorf("parallel Emit(nil): %v", err)
		}
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "nil *Context") {
				t.Fatalf("Emit(nil) recover() = %v", r)
			}
		}()
		tick.Emit(nil, 1)
	})
}

func TestEffectAfterCancel(t *testing.T) {
	root := newRoot(t, nil)
	var n int
	f := root.Plugin(plugin("p", nil, noop))
	off, err := tick.On(f.Context(), func(int) { n++ })
	if err != nil {
		t.Fatal(err)
	}
	tick.Emit(root, 1)
	off()
	off() // idempotent
	tick.Emit(root, 2)
	if n != 1 {
		t.Fatalf("listener ran %d times, want 1", n)
	}
}

func TestDisposeWaitsForRunningListener(t *testing.T) {
	root := newRoot(t, nil)
	entered, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	finished := false
	f := root.Plugin(plugin("slow", nil, func(c *kit.Context) error {
		_, err := tick.On(c, func(int) {
			close(entered)
			<-release
			mu.Lock()
			finished = true
			mu.Unlock()
		})
		return err
	}))
	var wg sync.WaitGroup
	wg.Go(func() { tick.Emit(root, 1) })
	<-entered
	disposed := make(chan error)
	go func() { disposed <- f.Dispose(context.Background()) }()
	select {
	case <-disposed:
		t.Fatal("Dispose returned while a listener was still running")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if err := <-disposed; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !finished {
		t.Fatal("Dispose returned before the running listener finished")
	}
	wg.Wait()
}

func TestDisposeWaitHonorsContext(t *testing.T) {
	root := newRoot(t, nil)
	entered, release := make(chan struct{}), make(chan struct{})
	f := root.Plugin(plugin("stuck", nil, func(c *kit.Context) error {
		_, err := tick.On(c, func(int) { close(entered); <-release })
		return err
	}))
	var wg sync.WaitGroup
	wg.Go(func() { tick.Emit(root, 1) })
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := f.Dispose(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Dispose = %v, want DeadlineExceeded", err)
	}
	mustState(t, f, kit.StateDisposed)
	close(release)
	wg.Wait()
}

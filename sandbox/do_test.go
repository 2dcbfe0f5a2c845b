package sandbox_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/dop251/goja"
)

// doMount evaluates code in a fresh sandbox bounded by call and returns the mount's realm.
func doMount(t *testing.T, call time.Duration, code string) (*sandbox.Sandbox, *sandbox.Mount) {
	t.Helper()
	sb := sandbox.New(&sandbox.Options{Timeouts: &sandbox.Timeouts{VM: time.Second, Mount: time.Second, Call: call}})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := sb.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	m, err := sb.Evaluate(context.Background(), "dyn-1", code)
	if err != nil {
		t.Fatal(err)
	}
	return sb, m
}

// global reads the global name through Do.
func global(t *testing.T, r *sandbox.Realm, name string) goja.Value {
	t.Helper()
	var v goja.Value
	if err := r.Do(context.Background(), func(rt *goja.Runtime) error { v = rt.Get(name); return nil }); err != nil {
		t.Fatalf("Do: %v", err)
	}
	return v
}

// TestDoTakesTheEngine: goroutines that hold no lock touch the runtime through Do while
// others run the realm's JavaScript through Deliver, and neither runs beside the other —
// every increment of the shared global counts (run with -race: Do without the lock is a
// data race on the runtime, and increments go missing).
func TestDoTakesTheEngine(t *testing.T) {
	_, m := doMount(t, 10*time.Second, `globalThis.n = 0; globalThis.bump = () => { for (let i = 0; i < 100; i++) n++ }; return () => {}`)
	r := m.Realm()
	bump, ok := goja.AssertFunction(global(t, r, "bump"))
	if !ok {
		t.Fatal("bump is not a function")
	}
	const goroutines, rounds = 4, 200
	var wg sync.WaitGroup
	errs := make(chan error, 2*goroutines*rounds)
	for range goroutines {
		wg.Go(func() {
			for range rounds {
				errs <- r.Do(context.Background(), func(rt *goja.Runtime) error {
					return rt.Set("n", rt.Get("n").ToInteger()+1)
				})
			}
		})
		wg.Go(func() {
			for range rounds {
				errs <- r.Deliver(context.Background(), bump, nil, nil)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, want := global(t, r, "n").ToInteger(), int64(goroutines*rounds*(1+100)); got != want {
		t.Fatalf("n = %d, want %d: increments were lost", got, want)
	}
}

// TestDoFromUnlocked: a native function's Go call, out of the lock in Realm.Unlocked, is
// outside the engine: Do there enters the realm, nested in the calling entry, without
// deadlock.
func TestDoFromUnlocked(t *testing.T) {
	sb := sandbox.New(nil)
	defer sb.Close(context.Background())
	p, err := sb.Compile("dyn-1", `return () => {}`)
	if err != nil {
		t.Fatal(err)
	}
	var (
		seen  string
		inner error
	)
	globals := map[string]func(*sandbox.Realm) goja.Value{"peek": func(r *sandbox.Realm) goja.Value {
		return r.Func("peek", func(goja.FunctionCall) goja.Value {
			r.Unlocked(func() {
				inner = r.Do(context.Background(), func(rt *goja.Runtime) error {
					seen = rt.Get("secret").String()
					return nil
				})
			})
			return goja.Undefined()
		})
	}}
	m, err := sb.RunWith(context.Background(), p, &sandbox.RunOptions{Globals: globals})
	if err != nil {
		t.Fatal(err)
	}
	r := m.Realm()
	err = r.Do(context.Background(), func(rt *goja.Runtime) error {
		_, err := rt.RunString(`globalThis.secret = 'kept'; peek()`)
		return err
	})
	if err != nil || inner != nil || seen != "kept" {
		t.Fatalf("Do from Unlocked: seen %q, err %v, inner %v", seen, err, inner)
	}
}

// TestDoErrors: what fn runs is bounded by CallTimeout and ctx; what it throws — a
// JavaScript exception, a Go panic — comes back as the error; fn's own error as it is;
// and after each the engine is free (the next Do runs). A closed realm refuses Do without
// calling fn, and a nil context or func is an error that says what to pass.
func TestDoErrors(t *testing.T) {
	_, m := doMount(t, 100*time.Millisecond, `return () => {}`)
	r := m.Realm()
	mine := errors.New("mine")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		fn   func(rt *goja.Runtime) error
		is   func(error) bool
	}{
		{"runaway JavaScript", context.Background(), func(rt *goja.Runtime) error { _, err := rt.RunString(`for (;;) {}`); return err },
			func(err error) bool {
				return errors.Is(err, context.DeadlineExceeded) && strings.Contains(err.Error(), "CallTimeout")
			}},
		{"cancelled context", ctx, func(rt *goja.Runtime) error { _, err := rt.RunString(`for (;;) {}`); return err },
			func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"thrown", context.Background(), func(rt *goja.Runtime) error { _, err := rt.RunString(`throw new RangeError('no')`); return err },
			func(err error) bool {
				var je *sandbox.JSError
				return errors.As(err, &je) && strings.Contains(err.Error(), "RangeError: no")
			}},
		{"Go panic", context.Background(), func(*goja.Runtime) error { panic("boom") },
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "boom") }},
		{"fn's own", context.Background(), func(*goja.Runtime) error { return mine },
			func(err error) bool { return errors.Is(err, mine) }},
		{"nil context", nil, func(*goja.Runtime) error { return nil },
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "context.Background()") }},
		{"nil func", context.Background(), nil,
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "needs a context and a func") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := r.Do(tc.ctx, tc.fn); !tc.is(err) {
				t.Fatalf("Do = %v", err)
			}
			if v := global(t, r, "Object"); goja.IsUndefined(v) {
				t.Fatal("the next Do did not run")
			}
		})
	}
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	called := false
	if err := r.Do(context.Background(), func(*goja.Runtime) error { called = true; return nil }); !errors.Is(err, sandbox.ErrClosed) || called {
		t.Fatalf("Do on a closed realm = %v, fn called %v; want ErrClosed, not called", err, called)
	}
}

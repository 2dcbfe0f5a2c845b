package sandbox

import (
	"context"
	"errors"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// installBus defines listen(fn) and emit(x): emit calls Go through Sync, and Go delivers x to
// every listener — the shape of a Go service method that emits to JavaScript. With
// parallel set, Go delivers from fresh goroutines and waits for them (a parallel event).
func installBus(r *Realm, parallel bool) {
	var fns []goja.Callable
	set(r, "listen", func(r *Realm) any {
		return r.Func("bus.listen", func(call goja.FunctionCall) goja.Value {
			fns = append(fns, argCallback(r, call, 0, "bus.listen", "fn"))
			return goja.Undefined()
		})
	})
	set(r, "emit", func(r *Realm) any {
		return r.Func("bus.emit", func(call goja.FunctionCall) goja.Value {
			x := argString(r, call, 0, "bus.emit", "x")
			ls := append([]goja.Callable(nil), fns...)
			var errs []error
			r.Unlocked(func() {
				var mu sync.Mutex
				var wg sync.WaitGroup
				for _, fn := range ls {
					deliver := func() {
						err := r.Deliver(context.Background(), fn, func() []goja.Value { return []goja.Value{r.rt.ToValue(x)} }, nil)
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
					if parallel {
						wg.Go(deliver)
					} else {
						deliver()
					}
				}
				wg.Wait()
			})
			if err := errors.Join(errs...); err != nil {
				r.throw(err)
			}
			return goja.Undefined()
		})
	})
}

func TestSyncReentersInline(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		t.Run(map[bool]string{false: "same goroutine", true: "other goroutines"}[parallel], func(t *testing.T) {
			l, _ := newTestSandbox(t, nil)
			r := testRealm(t, l, "dyn-1")
			installBus(r, parallel)
			got := runJSON(r, `
				const seen = []
				listen((x) => seen.push("a:" + x))
				listen((x) => { seen.push("b:" + x); if (x === "outer") emit("inner") })
				emit("outer")
				seen`)
			if want := `["a:outer","b:outer","a:inner","b:inner"]`; got != want && !parallel {
				t.Errorf("got %s, want %s", got, want)
			}
			if parallel && !strings.Contains(got, `"a:inner"`) {
				t.Errorf("got %s: the nested emit did not reach the listeners", got)
			}
		})
	}
}

func TestUnlockedPanicBecomesError(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	set(r, "boom", func(r *Realm) any {
		return r.Func("t.boom", func(goja.FunctionCall) goja.Value {
			r.Unlocked(func() { panic("kaboom") })
			return goja.Undefined()
		})
	})
	set(r, "crash", func(r *Realm) any {
		return r.Func("t.crash", func(goja.FunctionCall) goja.Value {
			var m map[string]int
			//lint:ignore SA5000 the Go bug is the point
			m["x"] = 1 // a Go bug in a binding
			return goja.Undefined()
		})
	})
	tests := []struct{ src, want string }{
		{`try { boom() } catch (e) { e instanceof Error && e.message }`, `"t.boom: internal error (Go panic): kaboom"`},
		{`try { crash() } catch (e) { e.name + ": " + e.message }`, `"Error: t.crash: internal error (Go panic): assignment to entry in nil map"`},
		{`try { boom() } catch (e) { "value" in e }`, `false`}, // no reflected Go error on the JS side
	}
	for _, tt := range tests {
		if got := runJSON(r, tt.src); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestThrow(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	set(r, "fail", func(r *Realm) any {
		return r.Func("t.fail", func(call goja.FunctionCall) goja.Value {
			if call.Argument(0).ToBoolean() {
				r.throw(&conv.ArgError{Method: "t.fail", Param: "x", Want: "a string", Got: "number"})
			}
			r.throw(errors.New("plain failure"))
			return nil
		})
	})
	tests := []struct{ src, want string }{
		{`try { fail(true) } catch (e) { [e instanceof TypeError, e.message] }`, `[true,"t.fail: parameter x: expected a string, got number"]`},
		{`try { fail(false) } catch (e) { [e instanceof TypeError, e instanceof Error, e.name, e.message] }`, `[false,true,"Error","plain failure"]`},
	}
	for _, tt := range tests {
		if got := runJSON(r, tt.src); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestAsync(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	set(r, "fetchLater", func(r *Realm) any {
		return r.Func("t.fetchLater", func(call goja.FunctionCall) goja.Value {
			mode := argString(r, call, 0, "t.fetchLater", "mode")
			return r.promise(func(ctx context.Context) (func() goja.Value, error) {
				switch mode {
				case "ok":
					time.Sleep(time.Millisecond)
					return func() goja.Value { return r.rt.ToValue("fetched") }, nil
				case "err":
					return nil, errors.New("no such file")
				case "panic":
					panic("bad binding")
				case "wait":
					<-ctx.Done() // bounded by CallTimeout
					return nil, ctx.Err()
				}
				return nil, nil
			})
		})
	})
	set(r, "check", func(r *Realm) any {
		return r.Func("t.check", func(call goja.FunctionCall) goja.Value { return call.Argument(0) })
	})
	tests := []struct{ src, want string }{
		{`fetchLater("ok")`, `"fetched"`},
		{`fetchLater("none")`, `undefined`},
		{`fetchLater("err").catch(e => "caught: " + e.message)`, `"caught: no such file"`},
		{`fetchLater("panic").catch(e => "caught: " + e.message)`, `"caught: Go panic: bad binding"`},
		{`(async () => { const a = await fetchLater("ok"); const b = await fetchLater("ok"); return a + b })()`, `"fetchedfetched"`},
	}
	for _, tt := range tests {
		var got string
		err := r.call(context.Background(), bound{What: "test", Name: "CallTimeout", Limit: time.Second},
			func() (goja.Value, error) { return r.rt.RunString(tt.src) },
			func(v goja.Value) error {
				got = "undefined"
				if !goja.IsUndefined(v) {
					b, err := r.toJSON(v, "result")
					got = string(b)
					return err
				}
				return nil
			})
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
		} else if got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.src, got, tt.want)
		}
	}
	// An async Go call that outlives CallTimeout sees its context end.
	start := time.Now()
	err := r.call(context.Background(), bound{What: "test", Name: "CallTimeout", Limit: 2 * time.Second},
		func() (goja.Value, error) { return r.rt.RunString(`fetchLater("wait").catch(e => e.message)`) },
		func(v goja.Value) error {
			if v.String() != "context deadline exceeded" {
				t.Errorf("got %v", v)
			}
			return nil
		})
	if err != nil || time.Since(start) > time.Second {
		t.Errorf("wait: err=%v after %v", err, time.Since(start))
	}
}

func TestDeliver(t *testing.T) {
	l, lb := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	set(r, "later", func(r *Realm) any {
		return r.Func("t.later", func(call goja.FunctionCall) goja.Value {
			v := call.Argument(0).String()
			return r.promise(func(context.Context) (func() goja.Value, error) {
				return func() goja.Value { return r.rt.ToValue(v) }, nil
			})
		})
	})
	fn := func(src string) goja.Callable {
		v, err := run(r, src)
		if err != nil {
			t.Fatal(err)
		}
		f, ok := goja.AssertFunction(v)
		if !ok {
			t.Fatalf("%s is not a function", src)
		}
		return f
	}
	args := func(xs ...any) func() []goja.Value {
		return func() []goja.Value {
			out := make([]goja.Value, len(xs))
			for i, x := range xs {
				out[i] = r.rt.ToValue(x)
			}
			return out
		}
	}
	tests := []struct {
		name, src string
		args      []any
		want      string // the converted result, or "error: …"
		deadline  bool
	}{
		{"sync result", `(a, b) => a + b`, []any{1, 2}, "3", false},
		{"async settled in the call", `async (x) => { await 0; return x * 2 }`, []any{21}, "42", false},
		{"async pending on Go", `async (x) => (await later("v")) + x`, []any{"!"}, `"v!"`, false},
		{"throw", `() => { throw new TypeError("bad input") }`, nil, "error: dyn-1: TypeError: bad input", false},
		{"throw a string", `() => { throw "plain" }`, nil, "error: dyn-1: plain", false},
		{"reject", `async () => { await later("x"); throw new Error("late failure") }`, nil, "error: dyn-1: Error: late failure", false},
		{"sync loop", `() => { for (;;) {} }`, nil, "error: dyn-1: a listener ran longer than CallTimeout (300ms) and was interrupted: context deadline exceeded", true},
		{"loop after await", `async () => { await 0; for (;;) {} }`, nil, "error: dyn-1: a listener ran longer than CallTimeout (300ms) and was interrupted: context deadline exceeded", true},
		{"loop after an async Go call", `async () => { await later(1); for (;;) {} }`, nil, "error: dyn-1: settling an async Go call ran longer than CallTimeout (300ms) and was interrupted: context deadline exceeded", true},
		{"never settles", `() => new Promise(() => {})`, nil, "error: dyn-1: a listener (its promise did not settle) ran longer than CallTimeout (300ms) and was interrupted: context deadline exceeded", true},
		{"deep recursion", `function f(n) { return f(n + 1) + 1 }; (() => f(0))`, nil, "error: dyn-1: a listener: stack overflow: more than 2000 nested calls (unbounded recursion?)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fn(tt.src)
			var got string
			err := r.Deliver(context.Background(), f, args(tt.args...), func(v goja.Value) error {
				b, err := r.toJSON(v, "result")
				got = string(b)
				return err
			})
			if err != nil {
				got = "error: " + err.Error()
			}
			if tt.name == "loop after an async Go call" {
				// The listener's own wait ends first or the settle entry is interrupted
				// first; either way it is a deadline.
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("got %v, want a deadline", err)
				}
			} else if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if tt.deadline && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("errors.Is(%v, DeadlineExceeded) = false", err)
			}
			var so *goja.StackOverflowError
			if tt.name == "deep recursion" && !errors.As(err, &so) {
				t.Errorf("errors.As(%v, *goja.StackOverflowError) = false", err)
			}
			// The realm still serves.
			if got := runJSON(r, `[1, 2].map(x => x + 1)`); got != "[2,3]" {
				t.Errorf("after: %s", got)
			}
		})
	}
	_ = lb
}

func TestDeliverContextCancel(t *testing.T) {
	l, _ := newTestSandbox(t, &Options{Timeouts: &Timeouts{Call: 10 * time.Second}})
	r := testRealm(t, l, "dyn-1")
	v, _ := run(r, `() => { for (;;) {} }`)
	f, _ := goja.AssertFunction(v)
	cause := errors.New("caller gave up")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(20*time.Millisecond, func() { cancel(cause) })
	err := r.Deliver(ctx, f, nil, nil)
	if !errors.Is(err, cause) {
		t.Fatalf("got %v, want the cause", err)
	}
	if got := runJSON(r, `"alive"`); got != `"alive"` {
		t.Fatalf("after: %s", got)
	}
}

func TestNestedTimeoutDoesNotKillTheOuterCall(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	installBus(r, false)
	// The inner listener loops; its own bound interrupts it; the outer call goes on.
	var got string
	err := r.call(context.Background(), bound{What: "outer", Name: "test", Limit: 5 * time.Second},
		func() (goja.Value, error) {
			return r.rt.RunString(`
		listen((x) => { if (x === "spin") for (;;) {} })
		let msg = ""
		try { emit("spin") } catch (e) { msg = e.message }
		msg.includes("ran longer than CallTimeout") ? "outer survived" : msg`)
		}, func(v goja.Value) error { got = v.String(); return nil })
	if err != nil || got != "outer survived" {
		t.Fatalf("got %s, %v", got, err)
	}
}

func TestNestedAsyncListenerIsNotAwaited(t *testing.T) {
	l, lb := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	installEmitBus(r)
	start := time.Now()
	got := runJSON(r, `
		const seen = []
		listen(async (x) => { await 0; seen.push(x); if (x === "bad") throw new Error("rejected later") })
		emit("a")
		seen.push("after emit")
		emit("bad")
		seen`)
	if time.Since(start) > 200*time.Millisecond {
		t.Errorf("a nested async listener was awaited (%v)", time.Since(start))
	}
	// The continuations ran when the outer call returned (its jobs drained), and the
	// rejection was reported.
	if got != `["after emit","a","bad"]` {
		t.Errorf("got %s", got)
	}
	if !strings.Contains(lb.String(), "rejected later") || !strings.Contains(lb.String(), "mount=dyn-1") {
		t.Errorf("log: %s", lb.String())
	}
}

func TestClosedRealm(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	v, _ := run(r, `() => 1`)
	f, _ := goja.AssertFunction(v)
	r.engine.lock.Lock()
	r.close()
	r.engine.lock.Unlock()
	if err := r.Deliver(context.Background(), f, nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v", err)
	}
}

func TestMerge(t *testing.T) {
	a := &Facade{Services: map[string]ServiceBinder{"fs": nil}, Events: map[string]EventAdapter{"a/x": nil}}
	b := &Facade{Services: map[string]ServiceBinder{"web": nil}, Events: map[string]EventAdapter{"b/y": nil}}
	m, err := Merge(a, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(append(m.ServiceKeys(), m.EventNames()...), ","); got != "fs,web,a/x,b/y" {
		t.Errorf("got %s", got)
	}
	c := &Facade{Services: map[string]ServiceBinder{"fs": nil}, Events: map[string]EventAdapter{"b/y": nil}}
	_, err = Merge(a, b, c)
	if err == nil || err.Error() != `sandbox: merging façades: event "b/y", service "fs" declared more than once; each service key and event name must come from one façade` {
		t.Errorf("got %v", err)
	}
}

// TestSyncAwaitingOwnRealmIsBounded documents the one deadlock the design cannot avoid: a
// sync Go method that awaits an async listener of its own caller's realm waits for itself.
// It ends at CallTimeout with a deadline error, and everything runs afterwards.
func TestSyncAwaitingOwnRealmIsBounded(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	var listener goja.Callable
	set(r, "listen", func(r *Realm) any {
		return r.Func("t.listen", func(call goja.FunctionCall) goja.Value {
			listener = argCallback(r, call, 0, "t.listen", "fn")
			return goja.Undefined()
		})
	})
	set(r, "askSync", func(r *Realm) any {
		return r.Func("t.askSync", func(goja.FunctionCall) goja.Value {
			var err error
			r.Unlocked(func() {
				err = r.Deliver(context.Background(), listener, nil, func(goja.Value) error { return nil })
			})
			return r.rt.ToValue(errors.Is(err, context.DeadlineExceeded))
		})
	})
	set(r, "later", func(r *Realm) any {
		return r.Func("t.later", func(goja.FunctionCall) goja.Value {
			return r.promise(func(context.Context) (func() goja.Value, error) { return nil, nil })
		})
	})
	start := time.Now()
	var got string
	err := r.call(context.Background(), bound{What: "outer", Name: "test", Limit: 5 * time.Second},
		func() (goja.Value, error) {
			return r.rt.RunString(`
				let done = false
				listen(async () => { await later(); done = true })
				const timedOut = askSync()
				;[timedOut, done]`)
		}, func(v goja.Value) error { b, err := r.toJSON(v, "v"); got = string(b); return err })
	if err != nil || got != "[true,false]" {
		t.Fatalf("got %s, %v", got, err)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 3*time.Second {
		t.Errorf("took %v, want about CallTimeout", d)
	}
	if got := runJSON(r, `done`); got != "true" {
		t.Errorf("the listener's continuation did not run once the outer call returned: %s", got)
	}
}

// Mount.Close returns at once when no async Go call is in flight (no goroutine, no
// allocation), and otherwise waits — bounded by its context — for the calls to end, their
// contexts cancelled; the last call to end wakes every waiting Close.
func TestMountCloseWaitsForAsync(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	cancelled, release := make(chan struct{}), make(chan struct{})
	set(r, "block", func(r *Realm) any {
		return r.Func("t.block", func(goja.FunctionCall) goja.Value {
			return r.async(0, func(ctx context.Context) (func() goja.Value, error) {
				<-ctx.Done()
				close(cancelled)
				<-release
				return nil, nil
			})
		})
	})
	if _, err := run(r, `block(); 1`); err != nil {
		t.Fatal(err)
	}
	m := &Mount{realm: r}
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := m.Close(short); err == nil || !strings.Contains(err.Error(), "waiting for async Go calls") {
		t.Fatalf("Close with a call in flight: %v", err)
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the async call's context was not cancelled by Close")
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			errs <- m.Close(ctx)
		}()
	}
	time.Sleep(10 * time.Millisecond)
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("Close after the call ended: %v", err)
		}
	}
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() {
		if err := m.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Close with nothing in flight allocates %v times", n)
	}
	if got := runJSON(r, `1`); !strings.Contains(got, ErrClosed.Error()) {
		t.Errorf("entry after Close: %s", got)
	}
}

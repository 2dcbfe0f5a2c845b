package sandbox

import (
	"context"
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/cordiskit/cordiskit/sandbox/internal/link"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
)

// This file hand-writes, in the shape facade_gen.go has, the seam of an interface service
// (echo) and a Go service (bounce) that calls back into it, to test the binding contract
// on its own; internal/gen tests the generated seams.

// echoer is an interface service a mount may implement in JavaScript.
type echoer interface {
	Echo(ctx context.Context, s string) (string, error)
	Len(s string) int
}

var echoService = kit.NewService[echoer]("echo")

// echoSeam is what bind.NewSeamAdapter[echoer] makes (this package's tests cannot import
// bind, which imports it).
var echoSeam = link.NewSeamAdapter(reflect.TypeFor[echoer](), []link.SeamMethod{
	{Go: "Echo", JS: "echo", Signature: "async echo(s: string): Promise<string>"},
	{Go: "Len", JS: "len", Signature: "len(s: string): number"},
}, func(s any, _, _ string) any { return &echoImpl{seam: s.(*seam)} })

type echoImpl struct{ seam *seam }

func (x *echoImpl) Echo(ctx context.Context, s string) (string, error) {
	var res string
	err := x.seam.call(ctx, 0, func(r *Realm) []goja.Value { return []goja.Value{r.rt.ToValue(s)} },
		func(r *Realm, v goja.Value) error { res = toString(r, v, "", "echo.echo(…)"); return nil })
	return res, err
}

func (x *echoImpl) Len(s string) int {
	var res int
	if err := x.seam.call(context.Background(), 1, func(r *Realm) []goja.Value { return []goja.Value{r.rt.ToValue(s)} },
		func(r *Realm, v goja.Value) error {
			res = int(conv.Int(thrower{r}, v, "", "echo.len(…)"))
			return nil
		}); err != nil {
		x.seam.fail(1, err)
	}
	return res
}

// bouncer is a Go service whose method calls the echo seam: a way back from JavaScript
// into a JavaScript implementation, through Go.
type bouncer struct{ root *kit.Context }

var bounceService = kit.NewService[*bouncer]("bounce")

func bindEcho(r *Realm, v any) (*goja.Object, error) {
	e, ok := v.(echoer)
	if !ok {
		return nil, fmt.Errorf("echo holds a %T", v)
	}
	o := r.rt.NewObject()
	_ = o.Set("len", r.Func("echo.len", func(call goja.FunctionCall) goja.Value {
		s := argString(r, call, 0, "echo.len", "s")
		var n int
		r.Unlocked(func() { n = e.Len(s) })
		return r.rt.ToValue(n)
	}))
	return o, nil
}

func bindBounce(r *Realm, v any) (*goja.Object, error) {
	b := v.(*bouncer)
	o := r.rt.NewObject()
	_ = o.Set("len", r.Func("bounce.len", func(call goja.FunctionCall) goja.Value {
		s := argString(r, call, 0, "bounce.len", "s")
		var n int
		r.Unlocked(func() {
			if e, ok := echoService.Get(b.root); ok {
				n = e.Len(s)
			}
		})
		return r.rt.ToValue(n)
	}))
	return o, nil
}

var seamFacade = &Facade{
	Services: map[string]ServiceBinder{"echo": bindEcho, "bounce": bindBounce, "greeter": bindGreeter},
	Seams:    map[string]*link.SeamAdapter{"echo": echoSeam},
}

// newSeamHost is a host whose sandbox uses seamFacade and whose root provides bounce.
func newSeamHost(t *testing.T, onError func(string, error)) *host {
	h := newHost(t, nil)
	h.sb = New(&Options{Facade: seamFacade, Timeouts: h.sb.Timeouts().ptr(), Logger: h.sb.logger, OnError: onError})
	h.root.Plugin(&kit.Plugin{Name: "bounce", Apply: func(c *kit.Context) error { return bounceService.Provide(c, &bouncer{root: h.root}) }})
	return h
}

const echoPlugin = `return { name: 'echo-js', apply(ctx) {
	ctx.provide('echo', { echo: async (s) => s + s, len: (s) => s.length })
} }`

// TestSeamConcurrentCallsAndUnmount calls a JavaScript implementation from many goroutines
// and unmounts it while they call: every call returns a result or a clear error, the
// service goes with the mount, and nothing races.
func TestSeamConcurrentCallsAndUnmount(t *testing.T) {
	h := newSeamHost(t, nil)
	m, f := h.mustMount(echoPlugin)
	e, ok := echoService.Get(h.root)
	if !ok {
		t.Fatal("the seam is not provided")
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var calls atomic.Int64
	bad := map[string]int{}
	for g := range 8 {
		wg.Go(func() {
			// Until the unmount ends the implementation (bounded, should it not).
			for i := range 20000 {
				s := fmt.Sprint(g, "-", i)
				got, err := e.Echo(context.Background(), s)
				calls.Add(1)
				switch {
				case err == nil && got == s+s:
				case err != nil && errors.Is(err, ErrClosed) && strings.Contains(err.Error(), "is gone"):
					return
				default:
					mu.Lock()
					bad[fmt.Sprintf("%q, %v", got, err)]++
					mu.Unlock()
				}
				if n := e.Len(s); n != len(s) && n != 0 {
					mu.Lock()
					bad[fmt.Sprintf("Len = %d", n)]++
					mu.Unlock()
				}
			}
		})
	}
	for calls.Load() < 100 {
		time.Sleep(time.Millisecond)
	}
	h.unmount(m, f)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("unexpected results: %v", bad)
	}
	if _, ok := echoService.Get(h.root); ok {
		t.Error("the seam outlived its mount")
	}
	if _, err := e.Echo(context.Background(), "x"); !errors.Is(err, ErrClosed) {
		t.Errorf("Echo after unmount = %v, want ErrClosed", err)
	}
}

// TestSeamReleasesRealm checks that a Go value of a JavaScript implementation that
// outlives its mount does not keep the mount's realm reachable.
func TestSeamReleasesRealm(t *testing.T) {
	h := newSeamHost(t, nil)
	m, f := h.mustMount(echoPlugin)
	e, _ := echoService.Get(h.root)
	if n := e.Len("abc"); n != 3 {
		t.Fatalf("Len = %d", n)
	}
	realm := weak.Make(m.realm)
	h.unmount(m, f)
	h.mounts, m, f = nil, nil, nil
	for range 5 {
		runtime.GC()
		if realm.Value() == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if realm.Value() != nil {
		t.Error("the realm of an unmounted JavaScript implementation is still reachable while Go holds the service value")
	}
	if n := e.Len("abc"); n != 0 {
		t.Errorf("Len after unmount = %d, want 0", n)
	}
	runtime.KeepAlive(e)
}

// TestSeamHostileObjects provides objects that fight the check at provide time: what
// their getters throw reaches the mount, a getter that never returns is bounded, and a
// method swapped after provide does not change the implementation.
func TestSeamHostileObjects(t *testing.T) {
	var errs []string
	var mu sync.Mutex
	h := newSeamHost(t, func(_ string, err error) { mu.Lock(); errs = append(errs, err.Error()); mu.Unlock() })
	for _, tc := range []struct{ code, want string }{
		{`return { apply(ctx) { ctx.provide('echo', new Proxy({}, { get() { throw new Error('trap says no') } })) } }`, "trap says no"},
		{`return { apply(ctx) { ctx.provide('echo', { get echo() { for (;;) {} }, len() {} }) } }`, "MountTimeout"},
		{`return { apply(ctx) { ctx.provide('echo', { echo: 1, len: null }) } }`, "missing or not a function: echo, len"},
		{`return { apply(ctx) { ctx.provide('echo', null) } }`, "(got null)"},
		{`return { apply(ctx) { ctx.provide('greeter', {}) } }`, "cannot stand in for it"},
	} {
		_, _, err := h.mount(tc.code)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("mount error %v, want %q", err, tc.want)
		}
		if _, ok := echoService.Get(h.root); ok {
			t.Fatal("a refused implementation was provided")
		}
	}

	m, f := h.mustMount(`return { apply(ctx) {
		const impl = { echo: async (s) => s, len: (s) => s.length };
		ctx.provide('echo', impl);
		impl.len = () => { throw new Error('swapped') };
		ctx.tools.register({ name: 'probe', description: 'd', execute: () => { impl.echo = null; return 'ok' } });
	} }`)
	defer h.unmount(m, f)
	e, _ := echoService.Get(h.root)
	if n := e.Len("four"); n != 4 {
		t.Errorf("Len = %d: a method replaced after provide changed the implementation", n)
	}
	if _, err := h.call("probe", "{}"); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Echo(context.Background(), "same"); got != "same" || err != nil {
		t.Errorf("Echo = %q, %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errs) != 0 {
		t.Errorf("errors reported: %v", errs)
	}
}

// TestSeamFailReported checks that a method without an error result reports a failure
// (with the mount and the method) and returns its zero value.
func TestSeamFailReported(t *testing.T) {
	var errs []string
	var mu sync.Mutex
	h := newSeamHost(t, func(mount string, err error) { mu.Lock(); errs = append(errs, mount+" "+err.Error()); mu.Unlock() })
	m, f := h.mustMount(`return { apply(ctx) { ctx.provide('echo', { echo: async (s) => s, len: (s) => { if (s === 'x') throw new TypeError('no x'); return 'long' } }) } }`)
	defer h.unmount(m, f)
	e, _ := echoService.Get(h.root)
	for s, want := range map[string]string{
		"x": "dyn-1 echo.len, implemented in JavaScript: dyn-1: TypeError: no x",
		"y": "dyn-1 echo.len, implemented in JavaScript: dyn-1: TypeError: echo.len(…): expected an integer, got string",
	} {
		if n := e.Len(s); n != 0 {
			t.Errorf("Len(%s) = %d, want 0", s, n)
		}
		mu.Lock()
		last := errs[len(errs)-1]
		mu.Unlock()
		if !strings.HasPrefix(last, want) {
			t.Errorf("reported %q, want it to start with %q", last, want)
		}
	}
	if !strings.Contains(h.log.String(), "a call to a JavaScript service implementation failed") {
		t.Error("the failure was not logged")
	}
}

// TestSeamRecursionThroughGo has a JavaScript implementation call itself through a Go
// service, without end: the call stack bound ends it with an error, the process
// survives, and the mount serves the next call. In a child process: a fatal Go stack
// overflow would otherwise kill the suite.
func TestSeamRecursionThroughGo(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	var errs []string
	var mu sync.Mutex
	h := newSeamHost(t, func(_ string, err error) { mu.Lock(); errs = append(errs, err.Error()); mu.Unlock() })
	m, f := h.mustMount(`return { inject: ['bounce'], apply(ctx) {
		ctx.provide('echo', { echo: async (s) => s, len: (s) => s === 'stop' ? 0 : 1 + ctx.bounce.len(s) })
	} }`)
	defer h.unmount(m, f)
	e, _ := echoService.Get(h.root)
	// The recursion ends by the call stack's bound, whatever the clock says; a wedged one
	// fails here with every goroutine's stack (it runs in a child process).
	var n int
	within(t, time.Minute, "the recursion through Go", func() { n = e.Len("loop") })
	// The innermost call failed (and returned 0); each level above added its 1.
	if limit := h.sb.Limits().MaxCallStackSize; n <= 0 || n > limit {
		t.Errorf("Len = %d, want a depth between 1 and MaxCallStackSize (%d)", n, limit)
	}
	mu.Lock()
	reported := strings.Join(errs, "\n")
	mu.Unlock()
	if !strings.Contains(reported, "echo.len, implemented in JavaScript: dyn-1: a call to echo.len (its JavaScript implementation): stack overflow") {
		t.Errorf("reported %q, want the call stack bound", reported)
	}
	if n := e.Len("stop"); n != 0 {
		t.Errorf("Len(stop) = %d", n)
	}
	if got, err := e.Echo(context.Background(), "after"); got != "after" || err != nil {
		t.Errorf("Echo after the recursion = %q, %v", got, err)
	}
}

// TestMergeSeams checks that Merge keeps the seam adapters and names a key two façades
// both let JavaScript implement.
func TestMergeSeams(t *testing.T) {
	core := &Facade{Services: map[string]ServiceBinder{"greeter": bindGreeter}}
	m, err := Merge(core, withoutService(seamFacade, "greeter"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Seams["echo"] != echoSeam || len(m.Seams) != 1 {
		t.Errorf("merged seams = %v, want echo", m.Seams)
	}
	_, err = Merge(&Facade{Seams: map[string]*link.SeamAdapter{"echo": echoSeam}}, &Facade{Seams: map[string]*link.SeamAdapter{"echo": echoSeam}})
	if err == nil || !strings.Contains(err.Error(), `seam "echo" declared more than once`) {
		t.Errorf("Merge of two echo seams = %v", err)
	}
}

// withoutService is f without the binder of key.
func withoutService(f *Facade, key string) *Facade {
	out := &Facade{Services: map[string]ServiceBinder{}, Events: f.Events, Seams: f.Seams}
	for k, b := range f.Services {
		if k != key {
			out.Services[k] = b
		}
	}
	return out
}

// TestSeamProvidedOutsideApply provides the seam from a tool, after apply: a Go plugin
// that injects it loads inline, inside the mount's call, so a method that awaits cannot
// settle. The call is bounded, fails with a hint saying why and what to do, and the mount
// keeps serving.
func TestSeamProvidedOutsideApply(t *testing.T) {
	h := newSeamHost(t, nil)
	var loadErr error
	h.root.Plugin(&kit.Plugin{Name: "dep", Inject: []string{"echo"}, Apply: func(c *kit.Context) error {
		e, _ := echoService.Get(c)
		_, loadErr = e.Echo(context.Background(), "x")
		return nil
	}})
	m, f := h.mustMount(`return { apply(ctx) { ctx.tools.register({ name: 'late', description: 'd', execute: () => {
		ctx.provide('echo', { echo: async (s) => { await null; return s + s }, len: (s) => s.length })
		return 'ok'
	} }) } }`)
	defer h.unmount(m, f)
	start := time.Now()
	if out, err := h.call("late", "{}"); out != `"ok"` || err != nil {
		t.Fatalf("late = %s, %v", out, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the tool took %v", d)
	}
	if !errors.Is(loadErr, context.DeadlineExceeded) || !strings.Contains(loadErr.Error(), "provide the service in apply") {
		t.Errorf("Echo while loading inside the mount's call = %v, want the bound and the hint", loadErr)
	}
	e, _ := echoService.Get(h.root)
	if got, err := e.Echo(context.Background(), "y"); got != "yy" || err != nil {
		t.Errorf("Echo afterwards = %q, %v", got, err)
	}
}

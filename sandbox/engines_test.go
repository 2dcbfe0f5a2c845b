package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
	"go.uber.org/goleak"
)

// mountIn evaluates code as the next dyn-N in session's engine, its plugin sharing shares,
// and starts it under the root. globals are extra globals of the run (RunOptions.Globals).
func (h *host) mountIn(session string, shares []string, globals map[string]func(r *Realm) goja.Value, code string) (*Mount, *kit.Fiber) {
	h.t.Helper()
	h.next++
	id := fmt.Sprintf("dyn-%d", h.next)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := h.sb.Compile(id, code)
	if err != nil {
		h.t.Fatalf("%s: %v", id, err)
	}
	m, err := h.sb.RunWith(ctx, p, &RunOptions{Session: session, Shares: shares, Globals: globals})
	if err != nil {
		h.t.Fatalf("%s: %v", id, err)
	}
	f, err := m.Start(ctx, h.root)
	if err != nil {
		h.t.Fatalf("%s: %v", id, err)
	}
	h.mounts = append(h.mounts, m)
	return m, f
}

// callIn runs a tool registered in session, as a caller of that session does.
func (h *host) callIn(session, name, args string) (string, error) {
	tools, _ := kit.ToolsService.Get(h.root)
	out, err := tools.Call(kit.WithSession(context.Background(), session), name, json.RawMessage(args))
	return string(out), err
}

// TestCrossEngineService runs the membrane's cases with the provider and the consumer in
// two engines: another session's mount providing a key its runtime author shares, and a
// mount of the runtime's own (whose services every session sees). Each call leaves the
// consumer's engine and takes the provider's (-race checks that no runtime runs without
// its own engine's lock).
func TestCrossEngineService(t *testing.T) {
	for _, tc := range []struct{ name, provider string }{{"another session's", "alice"}, {"the runtime's own", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, nil)
			mp, fp := h.mountIn(tc.provider, []string{"greeterjs", "answer", "nothing"}, nil, greeterProvider)
			defer h.unmount(mp, fp)
			mc, fc := h.mountIn("bob", nil, nil, greeterConsumer)
			defer h.unmount(mc, fc)
			if mp.realm.engine == mc.realm.engine {
				t.Fatal("the provider and the consumer share an engine: the test would prove nothing")
			}
			if fc.State() != kit.StateActive {
				t.Fatalf("consumer %s", fc.State())
			}
			if out, err := h.callIn("bob", "greet", `{"name":"harness"}`); err != nil || out != `"hi harness"` {
				t.Fatalf("greet: %s %v", out, err)
			}
			for _, tt := range crossMountCases {
				if got := h.eval(mc, tt.src); got != tt.want {
					t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
				}
			}
		})
	}
}

// Two sessions share a service each (the runtime author's decision) and call each other's
// at once, from both sides, with callbacks crossing back: a call from bob's realm into
// alice's runs alice's code, which calls bob's callback, while alice's realm does the same
// to bob's. Each crossing takes one engine's lock at a time, so neither waits for the
// other forever; under -race no runtime runs without its engine's lock.
func TestCrossSessionCallsBothWaysAtOnce(t *testing.T) {
	h := newHost(t, &Timeouts{VM: time.Second, Mount: 2 * time.Second, Call: 2 * time.Second})
	provider := func(key string) string {
		return `return { name: '` + key + `-provider', apply(ctx) {
			ctx.provide('` + key + `', { twice(x, cb) { return [cb(x), cb(x + 1)] } })
		} }`
	}
	consumer := func(key, tool string) string {
		return `return { name: '` + tool + `', inject: ['` + key + `'], apply(ctx) {
			ctx.tools.register({ name: '` + tool + `', description: 'd', execute: ({ n }) => {
				let sum = 0
				for (let i = 0; i < n; i++) sum += ctx.` + key + `.twice(i, (y) => y * 10).reduce((a, b) => a + b)
				return sum
			} })
		} }`
	}
	mA, fA := h.mountIn("alice", []string{"alices"}, nil, provider("alices"))
	defer h.unmount(mA, fA)
	mB, fB := h.mountIn("bob", []string{"bobs"}, nil, provider("bobs"))
	defer h.unmount(mB, fB)
	mA2, fA2 := h.mountIn("alice", nil, nil, consumer("bobs", "alice_calls_bob"))
	defer h.unmount(mA2, fA2)
	mB2, fB2 := h.mountIn("bob", nil, nil, consumer("alices", "bob_calls_alice"))
	defer h.unmount(mB2, fB2)

	const rounds, n = 20, 25
	want := 0
	for i := range n {
		want += i*10 + (i+1)*10
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 2*rounds)
	for _, c := range []struct{ session, tool string }{{"alice", "alice_calls_bob"}, {"bob", "bob_calls_alice"}} {
		wg.Go(func() {
			for range rounds {
				out, err := h.callIn(c.session, c.tool, fmt.Sprintf(`{"n":%d}`, n))
				if err == nil && out != fmt.Sprint(want) {
					err = fmt.Errorf("%s = %s, want %d", c.tool, out, want)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the two sessions' calls into each other did not finish within 30s: a lock-order deadlock?")
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// JavaScript of two sessions runs at once: each realm marks that it runs and spins until
// it sees the other's mark, both without leaving its engine's lock (the natives do not
// release it). Under one lock for all realms the first to spin would hold it until its
// bound; with an engine per session both finish.
func TestSessionsRunJavaScriptAtOnce(t *testing.T) {
	h := newHost(t, &Timeouts{VM: time.Second, Mount: time.Second, Call: 2 * time.Second})
	var marks sync.Map
	globals := map[string]func(r *Realm) goja.Value{
		"mark": func(r *Realm) goja.Value {
			return r.Func("mark", func(call goja.FunctionCall) goja.Value {
				marks.Store(call.Argument(0).String(), true)
				return goja.Undefined()
			})
		},
		"seen": func(r *Realm) goja.Value {
			return r.Func("seen", func(call goja.FunctionCall) goja.Value {
				_, ok := marks.Load(call.Argument(0).String())
				return r.rt.ToValue(ok)
			})
		},
	}
	tool := func(self, other string) string {
		return `return { name: '` + self + `', apply(ctx) {
			ctx.tools.register({ name: 'meet_` + self + `', description: 'd', execute: () => {
				mark('` + self + `')
				while (!seen('` + other + `')) {}
				return 'met'
			} })
		} }`
	}
	ma, fa := h.mountIn("alice", nil, globals, tool("alice", "bob"))
	defer h.unmount(ma, fa)
	mb, fb := h.mountIn("bob", nil, globals, tool("bob", "alice"))
	defer h.unmount(mb, fb)

	var wg sync.WaitGroup
	results := make([]string, 2)
	for i, s := range []string{"alice", "bob"} {
		wg.Go(func() {
			out, err := h.callIn(s, "meet_"+s, `{}`)
			if err != nil {
				out = err.Error()
			}
			results[i] = out
		})
	}
	wg.Wait()
	for i, s := range []string{"alice", "bob"} {
		if results[i] != `"met"` {
			t.Errorf("%s's tool: %s; want both sessions' JavaScript running at once", s, results[i])
		}
	}
}

// A session's engine is made for its first realm and retired with its last: its watchdog
// stops and it leaves the sandbox, and the session's next mount gets a fresh one. The
// runtime's own realms are an engine too.
func TestEngineReleasedWithItsLastRealm(t *testing.T) {
	h := newHost(t, nil)
	// A realm of another session keeps its engine meanwhile.
	mo, fo := h.mountIn("other", nil, nil, `return { name: 'other', apply(ctx) {} }`)
	defer h.unmount(mo, fo)
	ignore := goleak.IgnoreCurrent()

	m1, f1 := h.mountIn("s", nil, nil, `return { name: 'one', inject: ['timer'], apply(ctx) {
		ctx.tools.register({ name: 'spin_s', description: 'd', execute: () => { const t = Date.now(); while (Date.now() - t < 20) {} return 1 } })
		ctx.sleep(60000) // an async Go call in flight when it is unmounted
	} }`)
	m2, f2 := h.mountIn("s", nil, nil, `return { name: 'two', apply(ctx) {} }`)
	if m1.realm.engine != m2.realm.engine {
		t.Fatal("two realms of one session got two engines")
	}
	if out, err := h.callIn("s", "spin_s", `{}`); err != nil || out != "1" {
		t.Fatalf("spin_s: %s %v", out, err) // the engine's watchdog runs
	}
	if got := h.sb.Engines(); got != 2 {
		t.Errorf("Engines() = %d with realms of two sessions, want 2", got)
	}
	first := m1.realm.engine
	h.unmount(m1, f1)
	if got := h.sb.Engines(); got != 2 {
		t.Errorf("Engines() = %d after one of session s's two realms closed, want 2", got)
	}
	h.unmount(m2, f2)
	if got := h.sb.Engines(); got != 1 {
		t.Errorf("Engines() = %d after session s's last realm closed, want 1 (the other session's)", got)
	}
	first.lock.Lock()
	closed := first.lock.Closed()
	first.lock.Unlock()
	if !closed {
		t.Error("the released engine's lock is not closed")
	}
	goleak.VerifyNone(t, ignore) // its watchdog and its async call's goroutine are gone

	m3, f3 := h.mountIn("s", nil, nil, `return { name: 'three', apply(ctx) {} }`)
	defer h.unmount(m3, f3)
	if m3.realm.engine == first {
		t.Error("the session's next realm got its retired engine")
	}
	if out := h.eval(m3, `1 + 1`); out != "2" {
		t.Errorf("the session's fresh engine: %s", out)
	}
}

// The runtime's own engine stays while its realms come and go (a mount and unmount in a
// loop starts no watchdog each time), until the sandbox closes.
func TestRuntimesOwnEngineStays(t *testing.T) {
	h := newHost(t, nil)
	m1, f1 := h.mountIn("", nil, nil, `return { name: 'one', apply(ctx) {} }`)
	own := m1.realm.engine
	h.unmount(m1, f1)
	if got := h.sb.Engines(); got != 1 {
		t.Errorf("Engines() = %d after the runtime's own only realm closed, want 1 (it stays)", got)
	}
	m2, f2 := h.mountIn("", nil, nil, `return { name: 'two', apply(ctx) {} }`)
	defer h.unmount(m2, f2)
	if m2.realm.engine != own {
		t.Error("the runtime's own next realm got a fresh engine")
	}
	if out := h.eval(m2, `1 + 1`); out != "2" {
		t.Errorf("the runtime's own engine after its realm closed: %s", out)
	}
}

// A realm whose run fails releases its engine too.
func TestEngineReleasedWhenTheRunFails(t *testing.T) {
	h := newHost(t, nil)
	p, err := h.sb.Compile("dyn-1", `throw new Error('no')`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.sb.RunWith(context.Background(), p, &RunOptions{Session: "s"}); err == nil || !strings.Contains(err.Error(), "no") {
		t.Fatalf("RunWith = %v, want the body's error", err)
	}
	if got := h.sb.Engines(); got != 0 {
		t.Errorf("Engines() = %d after the only run failed, want 0", got)
	}
}

// After Close no engine is made: a run fails with ErrClosed.
func TestClosedSandboxMakesNoEngine(t *testing.T) {
	l := New(nil)
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	p, err := l.Compile("dyn-1", `return (ctx) => {}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.RunWith(context.Background(), p, &RunOptions{Session: "s"}); !errors.Is(err, ErrClosed) {
		t.Errorf("RunWith after Close = %v, want ErrClosed", err)
	}
	if got := l.Engines(); got != 0 {
		t.Errorf("Engines() = %d after Close, want 0", got)
	}
}

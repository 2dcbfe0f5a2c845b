package sandbox

import (
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
)

// newHostLimits is newHost with limits for the sandbox.
func newHostLimits(t *testing.T, timeouts *Timeouts, limits *Limits) *host {
	t.Helper()
	h := newHost(t, timeouts)
	logger := slog.New(slog.NewTextHandler(io.MultiWriter(h.log), &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.sb = New(&Options{Facade: testFacade, Timeouts: h.sb.Timeouts().ptr(), Limits: limits, Logger: logger})
	return h
}

func (t Timeouts) ptr() *Timeouts { return &t }

// Each per-mount budget throws a teaching error naming its Limits field once it is
// reached, and gives a unit back when a registration goes away.
func TestMountQuotas(t *testing.T) {
	h := newHostLimits(t, nil, &Limits{MaxTimers: 3, MaxListeners: 3, MaxTools: 3, MaxServices: 3})
	for _, tc := range []struct {
		name, take, give string // take registers one more; give removes the last one
		want             string
	}{
		{"timers", "held.push(ctx.setTimeout(() => {}, 60000))", "held.pop()()", "more than 3 timers at once (Limits.MaxTimers); clear the ones you no longer need"},
		{"intervals", "held.push(ctx.setInterval(() => {}, 60000))", "held.pop()()", "more than 3 timers at once (Limits.MaxTimers)"},
		{"sleeps", "held.push(ctx.sleep(60000))", "", "ctx.sleep: more than 3 timers at once (Limits.MaxTimers)"},
		{"listeners", "held.push(ctx.on('tools/change', () => {}))", "held.pop()()", "more than 3 event listeners at once (Limits.MaxListeners); register each listener once"},
		{"once", "held.push(ctx.once('tools/change', () => {}))", "held.pop()()", "ctx.once: more than 3 event listeners at once (Limits.MaxListeners)"},
		{"tools", "held.push(ctx.tools.register({ name: 't' + (n++), description: 'd', execute: () => 1 }))", "held.pop()()", "more than 3 tools at once (Limits.MaxTools)"},
		{"services", "ctx.provide('s' + (n++), {})", "", "more than 3 provided services (Limits.MaxServices); provide one object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.t = t
			m, f := h.mustMount(`return { name: 'q', inject: ['timer'], apply(ctx) {
				globalThis.ctx = ctx; globalThis.held = []; globalThis.n = 0
				for (let i = 0; i < 3; i++) ` + tc.take + `
			} }`)
			defer h.unmount(m, f)
			if got := h.eval(m, `try { `+tc.take+`; 'no error' } catch (e) { String(e) }`); !strings.Contains(got, tc.want) || !strings.Contains(got, "TypeError: dyn-") {
				t.Fatalf("the registration past the budget: %s, want a TypeError containing %q", got, tc.want)
			}
			if tc.give == "" {
				return
			}
			if got := h.eval(m, tc.give+`; try { `+tc.take+`; 'ok' } catch (e) { String(e) }`); got != `"ok"` {
				t.Errorf("after removing one, registering again: %s", got)
			}
		})
	}
}

// A fired timeout gives its unit back: a plugin may schedule any number of timeouts over
// time, only not at once.
func TestFiredTimeoutsFreeTheirQuota(t *testing.T) {
	h := newHostLimits(t, nil, &Limits{MaxTimers: 5})
	m, f := h.mustMount(`return { name: 'q', inject: ['timer'], apply(ctx) {
		globalThis.fired = 0
		globalThis.batch = () => { for (let i = 0; i < 5; i++) ctx.setTimeout(() => { fired++ }, 1) }
		batch()
	} }`)
	defer h.unmount(m, f)
	for round := 2; round <= 4; round++ {
		deadline := time.Now().Add(2 * time.Second)
		for h.eval(m, `fired`) != strconv.Itoa((round-1)*5) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: fired = %s", round, h.eval(m, `fired`))
			}
			time.Sleep(5 * time.Millisecond)
		}
		if got := h.eval(m, `try { batch(); 'ok' } catch (e) { String(e) }`); got != `"ok"` {
			t.Fatalf("round %d: %s", round, got)
		}
	}
}

// A timer whose callback schedules two more grows exponentially; the timer budget keeps the
// mount's timers — each a goroutine once it fires and waits for the lock — bounded, and the
// host keeps serving.
func TestTimerFanOutIsBounded(t *testing.T) {
	h := newHostLimits(t, &Timeouts{VM: 200 * time.Millisecond, Mount: 200 * time.Millisecond, Call: 200 * time.Millisecond}, &Limits{MaxTimers: 64})
	base := runtime.NumGoroutine()
	m, f := h.mustMount(`return { name: 'fanout', inject: ['timer'], apply(ctx) {
		globalThis.runs = 0
		const boom = () => { runs++; ctx.setTimeout(boom, 0); ctx.setTimeout(boom, 0) }
		boom()
	} }`)
	peak := 0
	for end := time.Now().Add(500 * time.Millisecond); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		peak = max(peak, runtime.NumGoroutine()-base)
	}
	if peak > 64+32 {
		t.Errorf("%d goroutines at the peak, want at most about Limits.MaxTimers (64)", peak)
	}
	if !strings.Contains(h.log.String(), "more than 64 timers at once (Limits.MaxTimers)") {
		t.Errorf("the budget's error was not reported:\n%.2000s", h.log.String())
	}
	h.serving()
	h.unmount(m, f)
}

// A listener that registers itself again on every event would double every event; the
// listener budget caps it, and each event runs a bounded number of listeners.
func TestSelfRegisteringListenerIsBounded(t *testing.T) {
	h := newHostLimits(t, nil, &Limits{MaxListeners: 16})
	m, f := h.mustMount(`return { name: 'doubler', apply(ctx) {
		globalThis.runs = 0
		const f = () => { runs++; ctx.on('tools/change', f) }
		ctx.on('tools/change', f)
	} }`)
	defer h.unmount(m, f)
	for range 8 {
		b, fb := h.mustMount(`return { name: 'r', apply(ctx) { ctx.tools.register({ name: 'x', description: 'd', execute: () => 1 }) } }`)
		h.unmount(b, fb)
	}
	// 16 events: unbounded, the listeners would double each time (2^16 runs).
	if got := h.eval(m, `runs`); len(got) > 3 {
		t.Errorf("the listener ran %s times over 16 events, want at most 16 per event", got)
	}
	if !strings.Contains(h.log.String(), "more than 16 event listeners at once (Limits.MaxListeners)") {
		t.Errorf("the budget's error was not reported:\n%.2000s", h.log.String())
	}
}

// Budgets are per activation: a plugin that unloads (its dependency went away) and loads
// again starts afresh.
func TestQuotaIsPerActivation(t *testing.T) {
	h := newHostLimits(t, nil, &Limits{MaxServices: 2})
	pm, pf := h.mustMount(`return { name: 'dep', apply(ctx) { ctx.provide('dep', {}) } }`)
	cm, cf := h.mustMount(`return { name: 'c', inject: ['dep'], apply(ctx) { ctx.provide('c1', {}); ctx.provide('c2', {}) } }`)
	defer h.unmount(cm, cf)
	h.unmount(pm, pf)
	if st := cf.State(); st != kit.StatePending {
		t.Fatalf("consumer %v, want pending", st)
	}
	pm, pf = h.mustMount(`return { name: 'dep', apply(ctx) { ctx.provide('dep', {}) } }`)
	defer h.unmount(pm, pf)
	if st := cf.State(); st != kit.StateActive {
		t.Fatalf("consumer %v after its dependency returned, want active: %v", st, cf.Err())
	}
}

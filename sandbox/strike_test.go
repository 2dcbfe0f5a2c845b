package sandbox

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

var strikeTimeouts = &Timeouts{VM: 150 * time.Millisecond, Mount: 150 * time.Millisecond, Call: 100 * time.Millisecond}

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// An interval whose callback keeps running to (or near) CallTimeout is cancelled after
// three runs in a row, and the mount's log says why.
func TestIntervalStrikeOut(t *testing.T) {
	for _, tc := range []struct{ name, body, reason string }{
		{"spins just under the bound", "const t = Date.now(); while (Date.now() - t < 80) {}", "used more than half of CallTimeout (100ms)"},
		{"loops past the bound", "for (;;) {}", "ran longer than CallTimeout (100ms)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, strikeTimeouts)
			m, f := h.mustMount(`return { name: 'spinner', inject: ['timer'], apply(ctx) {
				globalThis.runs = 0
				ctx.setInterval(() => { runs++; ` + tc.body + ` }, 1)
			} }`)
			defer h.unmount(m, f)
			// On a loaded machine a spin may overrun its bound once: then the reason is the mixed one.
			want := regexp.MustCompile(`the ctx.setInterval callback (` + regexp.QuoteMeta(tc.reason) + `|used more than half of CallTimeout \(100ms\) or did not finish within it) 3 times in a row and was cancelled`)
			if !waitFor(2*time.Second, func() bool { return want.MatchString(h.log.String()) }) {
				t.Fatalf("not cancelled; log:\n%.3000s", h.log.String())
			}
			time.Sleep(50 * time.Millisecond)
			runs := h.eval(m, `runs`)
			time.Sleep(100 * time.Millisecond)
			if again := h.eval(m, `runs`); again != runs || runs != "3" {
				t.Errorf("runs = %s, then %s; want 3 and no more", runs, again)
			}
			if !strings.Contains(h.log.String(), "mount=dyn-1") {
				t.Errorf("the report does not name the mount:\n%.2000s", h.log.String())
			}
			h.serving()
		})
	}
}

// An interval that is slow now and then is kept: only strikes in a row count.
func TestIntervalStrikesReset(t *testing.T) {
	h := newHost(t, strikeTimeouts)
	m, f := h.mustMount(`return { name: 'flaky', inject: ['timer'], apply(ctx) {
		globalThis.runs = 0
		ctx.setInterval(() => { if (runs++ % 3 !== 2) { const t = Date.now(); while (Date.now() - t < 60) {} } }, 1)
	} }`)
	defer h.unmount(m, f)
	if !waitFor(5*time.Second, func() bool { return h.eval(m, `runs >= 12`) == "true" }) {
		t.Fatalf("runs = %s: the interval stopped; log:\n%.2000s", h.eval(m, `runs`), h.log.String())
	}
	if strings.Contains(h.log.String(), "was cancelled") {
		t.Errorf("cancelled:\n%.2000s", h.log.String())
	}
}

// A listener whose promise never settles makes every awaiting emitter wait out CallTimeout;
// after three in a row it is removed, and the next emit does not wait.
func TestUnsettledListenerStrikeOut(t *testing.T) {
	h := newHost(t, strikeTimeouts)
	m, f := h.mustMount(`return { name: 'hang', apply(ctx) {
		globalThis.runs = 0
		ctx.on('test/ask', () => { runs++; return new Promise(() => {}) })
	} }`)
	defer h.unmount(m, f)
	ask := func() (time.Duration, error) {
		start := time.Now()
		err := testAsk.Emit(context.Background(), h.root, askEvent{Question: "q"})
		return time.Since(start), err
	}
	for i := range 3 {
		if d, err := ask(); err == nil || !strings.Contains(err.Error(), "did not settle") {
			t.Fatalf("ask %d: %v after %v, want the bound's error", i, err, d)
		}
	}
	d, err := ask()
	if err != nil || d > 50*time.Millisecond {
		t.Errorf("the fourth ask: %v after %v; want the listener removed and no wait", err, d)
	}
	want := `the listener of \"test/ask\" returned a promise that did not settle within CallTimeout (100ms) 3 times in a row and was removed`
	if !strings.Contains(h.log.String(), want) {
		t.Errorf("no removal report; log:\n%.3000s", h.log.String())
	}
	if got := h.eval(m, `runs`); got != "3" {
		t.Errorf("runs = %s, want 3", got)
	}
}

// A listener whose promise settles, but only after CallTimeout, strikes too.
func TestLateListenerStrikeOut(t *testing.T) {
	h := newHost(t, strikeTimeouts)
	m, f := h.mustMount(`return { name: 'late', inject: ['timer'], apply(ctx) {
		ctx.on('test/ask', () => ctx.sleep(130))
	} }`)
	defer h.unmount(m, f)
	want := `the listener of \"test/ask\" returned a promise that did not settle within CallTimeout (100ms) 3 times in a row and was removed`
	for i := 0; i < 6 && !strings.Contains(h.log.String(), want); i++ {
		_ = testAsk.Emit(context.Background(), h.root, askEvent{Question: "q"})
		time.Sleep(60 * time.Millisecond) // the late promise settles
	}
	if !strings.Contains(h.log.String(), want) {
		t.Fatalf("no removal report; log:\n%.3000s", h.log.String())
	}
}

// An async listener that settles in time is never struck, however often it runs.
func TestPromptListenerKept(t *testing.T) {
	h := newHost(t, strikeTimeouts)
	m, f := h.mustMount(`return { name: 'ok', inject: ['timer'], apply(ctx) {
		globalThis.runs = 0
		ctx.on('test/ask', async () => { await ctx.sleep(5); runs++ })
	} }`)
	defer h.unmount(m, f)
	for i := range 10 {
		if err := testAsk.Emit(context.Background(), h.root, askEvent{Question: "q"}); err != nil {
			t.Fatalf("ask %d: %v", i, err)
		}
	}
	if got := h.eval(m, `runs`); got != "10" {
		t.Errorf("runs = %s, want 10", got)
	}
	if strings.Contains(h.log.String(), "was removed") {
		t.Errorf("removed:\n%.2000s", h.log.String())
	}
}

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
)

// canaryTool is a mount whose tool answers at once: its latency is the time it waits for
// the lock.
const canaryTool = `return { name: 'canary', apply(ctx) {
	ctx.tools.register({ name: 'canary', description: 'answers at once', execute: () => 'ok' })
} }`

// A canary calls the canary tool every few milliseconds until stopped and keeps the
// longest wait.
type canary struct {
	h     *host
	stop  chan struct{}
	done  sync.WaitGroup
	mu    sync.Mutex
	worst time.Duration
	calls int
	err   error
}

func startCanary(h *host) *canary {
	c := &canary{h: h, stop: make(chan struct{})}
	c.done.Go(func() {
		for {
			select {
			case <-c.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			start := time.Now()
			out, err := h.call("canary", `{}`)
			d := time.Since(start)
			c.mu.Lock()
			c.worst, c.calls = max(c.worst, d), c.calls+1
			if err != nil || out != `"ok"` {
				c.err = errors.Join(c.err, errors.New(out), err)
			}
			c.mu.Unlock()
		}
	})
	return c
}

// end stops the canary and returns its longest wait and how many calls it made.
func (c *canary) end(t *testing.T) (time.Duration, int) {
	t.Helper()
	close(c.stop)
	c.done.Wait()
	if c.err != nil {
		t.Errorf("the canary failed: %v", c.err)
	}
	return c.worst, c.calls
}

// oneRun bounds one run of a spinning tool or timer callback: CallTimeout plus a
// watchdog tick (a sixteenth of the smallest bound).
func oneRun(to *Timeouts) time.Duration { return to.Call + min(to.VM, to.Mount, to.Call)/16 }

// twoRuns is the stated bound (sandbox doc, "Strikes and shares") on what another
// mount's call waits for the back-to-back runs of one client or of one mount's timers:
// the run in progress and, as Go's mutex may let a new arrival take the lock once before
// it hands it over in order, one more.
func twoRuns(to *Timeouts) time.Duration { return 2 * oneRun(to) }

// A tool whose calls keep running into (or near) CallTimeout, called back to back, is
// struck out after three calls in a row: the third call and every later one fail with
// an error that says why and what to do, later calls run nothing, and a canary mount's
// tool called meanwhile waits at most two of its runs (sequential calls) or the three
// runs it is allowed (concurrent ones).
func TestToolStrikeOut(t *testing.T) {
	to := &Timeouts{VM: time.Second, Mount: time.Second, Call: 500 * time.Millisecond}
	for _, tc := range []struct {
		name, body, reason string
		clients            int
	}{
		{"spins just under the bound", "const t = Date.now(); while (Date.now() - t < 450) {}; return 1", "used more than half of their 500ms bound (CallTimeout)", 1},
		{"spins past the bound", "for (;;) {}", "ran to their 500ms bound (CallTimeout) and were interrupted", 1},
		{"never settles", "return new Promise(() => {})", "returned a promise that did not settle within their 500ms bound (CallTimeout)", 1},
		{"spins just under the bound, four clients", "const t = Date.now(); while (Date.now() - t < 450) {}; return 1", "used more than half of their 500ms bound (CallTimeout)", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, to)
			m, f := h.mustMount(`return { name: 'hog', apply(ctx) {
				globalThis.runs = 0
				ctx.tools.register({ name: 'spin', description: 'spins', execute: () => { runs++; ` + tc.body + ` } })
			} }`)
			defer h.unmount(m, f)
			mc, fc := h.mustMount(canaryTool)
			defer h.unmount(mc, fc)

			c := startCanary(h)
			var mu sync.Mutex
			var errs []error
			var wg sync.WaitGroup
			for range tc.clients {
				wg.Go(func() {
					for range 5 { // back to back
						_, err := h.call("spin", `{}`)
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			worst, calls := c.end(t)

			if runs := h.eval(m, `runs`); runs != "3" {
				t.Errorf("execute ran %s times, want 3 (struck out after the third)", runs)
			}
			struck := 0
			for _, err := range errs {
				var so *StruckOutError
				if !errors.As(err, &so) {
					continue
				}
				struck++
				msg := err.Error()
				for _, want := range []string{`tool "spin" was struck out: 3 calls in a row ` + tc.reason,
					"Make execute return sooner", "await ctx.sleep(0)", "unmount plugin dyn-1 and mount the fixed code"} {
					if !strings.Contains(msg, want) {
						t.Errorf("the error does not say %q:\n%s", want, msg)
					}
				}
			}
			if want := 5*tc.clients - 2; struck != want {
				t.Errorf("%d calls failed as struck out, want %d (the third and every later one): %v", struck, want, errs)
			}
			if tc.clients == 1 {
				// The striking call says what it did itself.
				third := errs[2].Error()
				if !strings.Contains(third, "(this call") {
					t.Errorf("the striking call does not say what became of it: %s", third)
				}
				if tc.reason == "used more than half of their 500ms bound (CallTimeout)" && !strings.Contains(third, "this call's result is discarded") {
					t.Errorf("the striking call's result is not said to be discarded: %s", third)
				}
			}
			if log := h.log.String(); !strings.Contains(log, `tool \"spin\" was struck out`) || !strings.Contains(log, "mount=dyn-1") {
				t.Errorf("the strike-out is not logged with the mount:\n%.3000s", log)
			}
			// Two runs of the tool (sequential calls); with concurrent clients, at most the
			// three runs a tool has before it is struck out.
			bound := twoRuns(to)
			if tc.clients > 1 {
				bound = maxStrikes * oneRun(to)
			}
			if slack := to.Call / 2; worst > bound+slack {
				t.Errorf("the canary waited %v (%d calls), want at most %v plus %v slack", worst, calls, bound, slack)
			}
			if calls == 0 {
				t.Errorf("the canary made no call")
			}
		})
	}
}

// A struck-out tool refuses calls without taking the lock: while another mount holds
// the lock, its refusal still comes at once.
func TestStruckOutToolTakesNoLock(t *testing.T) {
	to := &Timeouts{VM: time.Second, Mount: time.Second, Call: 200 * time.Millisecond}
	h := newHost(t, to)
	m, f := h.mustMount(`return { name: 'hog', apply(ctx) {
		ctx.tools.register({ name: 'spin', description: 'spins', execute: () => { for (;;) {} } })
		ctx.tools.register({ name: 'hold', description: 'holds the lock', execute: () => { const t = Date.now(); while (Date.now() - t < 90) {}; return 1 } })
	} }`)
	defer h.unmount(m, f)
	for range maxStrikes {
		_, _ = h.call("spin", `{}`)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = h.call("hold", `{}`) })
	time.Sleep(20 * time.Millisecond) // hold has the lock
	start := time.Now()
	_, err := h.call("spin", `{}`)
	d := time.Since(start)
	wg.Wait()
	var so *StruckOutError
	if !errors.As(err, &so) {
		t.Fatalf("spin: %v, want it struck out", err)
	}
	if d > 40*time.Millisecond {
		t.Errorf("the refusal took %v while another call held the lock (90ms): it waited for the lock", d)
	}
}

// A tool that is slow now and then — more than half its bound, or into the bound — but
// never three calls in a row, is kept; so is one whose callers give up before it
// answers.
func TestToolStrikesNotInARow(t *testing.T) {
	to := &Timeouts{VM: time.Second, Mount: time.Second, Call: 200 * time.Millisecond}
	h := newHost(t, to)
	m, f := h.mustMount(`return { name: 'flaky', apply(ctx) {
		globalThis.runs = 0
		ctx.tools.register({ name: 'slow', description: 'slow twice in three', execute: () => {
			if (runs++ % 3 !== 2) { const t = Date.now(); while (Date.now() - t < 130) {} }
			return runs
		} })
		globalThis.loops = 0
		ctx.tools.register({ name: 'loops', description: 'loops twice in three', execute: () => {
			if (loops++ % 3 !== 2) for (;;) {}
			return loops
		} })
		globalThis.hangs = 0
		ctx.tools.register({ name: 'hangs', description: 'never settles', execute: () => { hangs++; return new Promise(() => {}) } })
	} }`)
	defer h.unmount(m, f)
	for i := range 9 {
		for _, name := range []string{"slow", "loops"} {
			_, err := h.call(name, `{}`)
			if so := (*StruckOutError)(nil); errors.As(err, &so) {
				t.Fatalf("%s: call %d struck it out: %v", name, i+1, err)
			}
			if i%3 == 2 && err != nil {
				t.Errorf("%s: call %d (a quick one): %v", name, i+1, err)
			}
		}
	}
	// Callers that give up first are no evidence against the tool.
	for i := range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		tools, _ := kit.ToolsService.Get(h.root)
		_, err := tools.Call(ctx, "hangs", json.RawMessage(`{}`))
		cancel()
		if so := (*StruckOutError)(nil); errors.As(err, &so) || err == nil {
			t.Fatalf("hangs: call %d: %v, want the caller's deadline", i+1, err)
		}
	}
	if got := h.eval(m, `[runs, loops, hangs].join()`); got != `"9,9,5"` {
		t.Errorf("runs, loops, hangs = %s, want 9,9,5 (every call ran)", got)
	}
	if strings.Contains(h.log.String(), "was struck out") {
		t.Errorf("struck out:\n%.3000s", h.log.String())
	}
}

// A run is judged by the smaller of the entry's time on the watchdog's coarse clock and
// the wall time around the run: a coarse clock that lags (its goroutine waiting to be
// scheduled) must not make a quick call look like one that used most of its bound.
func TestPreciseUsedIgnoresALaggingClock(t *testing.T) {
	start := time.Now()
	time.Sleep(2 * time.Millisecond)
	if got := preciseUsed(161*time.Millisecond, start); got >= 100*time.Millisecond || got < 2*time.Millisecond {
		t.Errorf("a 2ms run the coarse clock saw as 161ms: used %v, want about 2ms", got)
	}
	// Time excused (other mounts' listeners run inline) makes the entry's time the smaller.
	if got := preciseUsed(time.Millisecond, start); got != time.Millisecond {
		t.Errorf("an excused run: used %v, want the entry's 1ms", got)
	}
}

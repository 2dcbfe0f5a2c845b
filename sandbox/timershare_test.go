package sandbox

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Twenty intervals of one mount, each spinning just under a bound of a 500ms CallTimeout
// — under the strike threshold (249ms), near it (449, 450ms: struck out after three runs
// each, sixty runs in all) and under the bound itself (499ms) — keep neither a canary
// mount's tool nor its listener waiting longer than the stated bound: two runs (see
// twoRuns). And the share holds: the intervals together run at most MaxTimerShare of the
// time, plus the allowance and the run in progress.
func TestTimerShareKeepsOthersAnswering(t *testing.T) {
	if testing.Short() {
		t.Skip("about 15s: sizes intervals to every bound of a 500ms CallTimeout")
	}
	to := &Timeouts{VM: time.Second, Mount: time.Second, Call: 500 * time.Millisecond}
	const intervals, watch = 20, 3 * time.Second
	for _, spin := range []int{249, 449, 450, 499} {
		t.Run(fmt.Sprintf("%dms", spin), func(t *testing.T) {
			h := newHost(t, to)
			start := time.Now()
			m, f := h.mustMount(fmt.Sprintf(`return { name: 'hog', inject: ['timer'], apply(ctx) {
				globalThis.runs = 0
				for (let i = 0; i < %d; i++) ctx.setInterval(() => { runs++; const t = Date.now(); while (Date.now() - t < %d) {} }, 0)
			} }`, intervals, spin))
			defer h.unmount(m, f)
			mc, fc := h.mustMount(`return { name: 'canary', apply(ctx) {
				ctx.tools.register({ name: 'canary', description: 'answers at once', execute: () => 'ok' })
				ctx.on('test/ask', () => 'ok')
			} }`)
			defer h.unmount(mc, fc)

			c := startCanary(h)
			var wg sync.WaitGroup
			var worstListener time.Duration
			var listenerErr error
			wg.Go(func() {
				for end := time.Now().Add(watch); time.Now().Before(end); time.Sleep(35 * time.Millisecond) {
					s := time.Now()
					if err := testAsk.Emit(context.Background(), h.root, askEvent{Question: "q"}); err != nil {
						listenerErr = err
					}
					worstListener = max(worstListener, time.Since(s))
				}
			})
			wg.Wait()
			worstTool, calls := c.end(t)
			elapsed := time.Since(start)
			runs, err := strconv.Atoi(h.eval(m, `runs`))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d intervals of %dms: %d runs in %v; the canary's tool waited at most %v (%d calls), its listener %v",
				intervals, spin, runs, elapsed.Round(time.Millisecond), worstTool, calls, worstListener)

			bound, slack := twoRuns(to), to.Call/2
			if worstTool > bound+slack {
				t.Errorf("the canary's tool waited %v, want at most %v plus %v slack", worstTool, bound, slack)
			}
			if listenerErr != nil || worstListener > bound+slack {
				t.Errorf("the canary's listener waited %v (%v), want at most %v plus %v slack", worstListener, listenerErr, bound, slack)
			}
			// The share: at 50% the runs take at most half the time, plus the allowance
			// (CallTimeout), plus the run in progress, plus the eval's own wait (two runs).
			used := time.Duration(runs) * time.Duration(spin) * time.Millisecond
			if most := elapsed/2 + to.Call + oneRun(to) + twoRuns(to) + slack; used > most {
				t.Errorf("%d runs of %dms (%v) in %v: more than the share allows (%v)", runs, spin, used, elapsed, most)
			}
			if runs < 2 {
				t.Errorf("%d runs: the intervals are starved", runs)
			}
			log := h.log.String()
			if !strings.Contains(log, "ran more than 50% of the time (Limits.MaxTimerShare)") {
				t.Errorf("the share was never reported:\n%.2000s", log)
			}
		})
	}
}

// A mount's timer callbacks run one at a time, each reserving its run before it waits for
// the lock: every run releases its reservation, so all due timers run, and short ones
// are not throttled.
func TestShortTimersAllRun(t *testing.T) {
	h := newHost(t, strikeTimeouts)
	m, f := h.mustMount(`return { name: 'many', inject: ['timer'], apply(ctx) {
		globalThis.runs = 0
		globalThis.order = []
		for (let i = 0; i < 5; i++) ctx.setTimeout(() => { runs++; order.push(i) }, 0)
	} }`)
	defer h.unmount(m, f)
	if !waitFor(2*time.Second, func() bool { return h.eval(m, `runs`) == "5" }) {
		t.Fatalf("runs = %s, want 5: a timer was lost", h.eval(m, `runs`))
	}
	// The share's debt after five near-instant runs is about nothing: nothing was delayed.
	if strings.Contains(h.log.String(), "Limits.MaxTimerShare") {
		t.Errorf("short timers were throttled:\n%.2000s", h.log.String())
	}
}

package sandbox

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// An interval whose runs each stay under the strike threshold but together hold the lock
// nearly all the time is slowed to Limits.MaxTimerShare of the wall time, not cancelled.
func TestTimerShare(t *testing.T) {
	h := newHost(t, strikeTimeouts) // CallTimeout 100ms: a 100ms allowance, 50% share
	m, f := h.mustMount(`return { name: 'busy', inject: ['timer'], apply(ctx) {
		globalThis.runs = 0
		ctx.setInterval(() => { runs++; const t = Date.now(); while (Date.now() - t < 40) {} }, 1)
	} }`)
	defer h.unmount(m, f)
	time.Sleep(time.Second)
	runs, err := strconv.Atoi(h.eval(m, `runs`))
	if err != nil {
		t.Fatal(err)
	}
	// Unthrottled it runs about 24 times a second (40ms each, back to back); at a 50% share
	// about 12.
	if runs > 17 || runs < 5 {
		t.Errorf("%d runs in a second, want about 12 (half the time)", runs)
	}
	log := h.log.String()
	if n := strings.Count(log, "ran more than 50% of the time (Limits.MaxTimerShare)"); n != 1 {
		t.Errorf("%d throttling reports, want 1:\n%.2000s", n, log)
	}
	if strings.Contains(log, "was cancelled") {
		t.Errorf("the interval was cancelled, want it delayed:\n%.2000s", log)
	}
}

// The share's debt: runs add the lock time they used, the wall time pays it off at
// MaxTimerShare percent, and no run starts while the debt is the allowance or more — nor
// while another run is reserved.
func TestTimerShareDebt(t *testing.T) {
	const allowance = 100 * time.Millisecond
	t0 := time.Unix(1000, 0)
	s := &timerShare{}
	admit := func(at time.Duration) (time.Duration, bool) {
		wait, woken, _ := s.admit(t0.Add(at), allowance, 50)
		return wait, woken != nil
	}
	if wait, _ := admit(0); wait != 0 {
		t.Fatalf("the first run waits %v", wait)
	}
	if wait, busy := admit(time.Millisecond); wait == 0 || !busy {
		t.Fatalf("a second run while the first is reserved: wait %v, busy %v; want it to wait for the first", wait, busy)
	}
	s.end(t0.Add(150*time.Millisecond), 150*time.Millisecond, 50) // debt 150ms
	// 150ms of debt is 50ms over the allowance: 100ms of wall time at 50% pays it off.
	if wait, busy := admit(150 * time.Millisecond); wait != 100*time.Millisecond || busy {
		t.Errorf("after a 150ms run: wait %v (busy %v), want 100ms", wait, busy)
	}
	if wait, _ := admit(249 * time.Millisecond); wait == 0 {
		t.Errorf("admitted 1ms before the debt is under the allowance")
	}
	if wait, _ := admit(251 * time.Millisecond); wait != 0 {
		t.Errorf("not admitted once the debt is under the allowance: wait %v", wait)
	}
	s.end(t0.Add(252*time.Millisecond), time.Millisecond, 50)
	if s.debt > allowance || s.busy {
		t.Errorf("debt %v busy %v after a short run, want under the allowance and free", s.debt, s.busy)
	}
	// Idle time pays everything off, and lends nothing: the debt stops at zero.
	s.pay(t0.Add(10*time.Second), 50)
	if s.debt != 0 {
		t.Errorf("debt %v after 10s idle, want 0", s.debt)
	}
}

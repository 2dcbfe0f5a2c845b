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
	h := newHost(t, strikeTimeouts) // CallTimeout 100ms: a 200ms window, 50% share
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
	if n := strings.Count(log, "ran more than 50% of the last 200ms (Limits.MaxTimerShare)"); n != 1 {
		t.Errorf("%d throttling reports, want 1:\n%.2000s", n, log)
	}
	if strings.Contains(log, "was cancelled") {
		t.Errorf("the interval was cancelled, want it delayed:\n%.2000s", log)
	}
}

// The share's sliding window: what was used fades out over a window.
func TestTimerShareWindow(t *testing.T) {
	const w = 100 * time.Millisecond
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		at   time.Duration
		want time.Duration
	}{
		{0, 60 * time.Millisecond},
		{w, 60 * time.Millisecond},       // a bucket later: all of the previous bucket is in the window
		{w + w/2, 30 * time.Millisecond}, // half of it has left the window
		{3 * w, 0},
	} {
		s := &timerShare{start: t0, cur: 60 * time.Millisecond}
		now := t0.Add(tc.at)
		s.roll(now, w)
		if got := s.used(now, w); got != tc.want {
			t.Errorf("used at %v = %v, want %v", tc.at, got, tc.want)
		}
	}
}

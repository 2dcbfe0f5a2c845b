package toolset_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// TestConsoleFlood: a mount that writes far more than Limits.MaxLogBytes (set through the
// toolset options) gets one truncation note, and the host's log stays within the budget.
func TestConsoleFlood(t *testing.T) {
	var logs syncBuffer
	h := newHarnessOpts(t, &toolset.Options{Limits: &sandbox.Limits{MaxLogBytes: 256 << 10},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	m := h.mount(`const s = 'x'.repeat(1 << 12)
	for (let i = 0; i < 100000; i++) console.log(s, i) // 400 MiB unbounded
	return (ctx) => {}`)
	h.mustCall("cordis_unmount", map[string]string{"id": m.ID})
	out := logs.String()
	if n := strings.Count(out, "console output truncated"); n != 1 {
		t.Errorf("%d truncation notes, want 1", n)
	}
	if len(out) > 512<<10 {
		t.Errorf("the log holds %d bytes, want about the 256 KiB budget", len(out))
	}
}

// TestSpinningIntervalStopsStarving: an interval that spins most of CallTimeout every
// millisecond holds the one JavaScript lock nearly all the time; once it is struck out,
// the canary's tool answers at once again.
func TestSpinningIntervalStopsStarving(t *testing.T) {
	const call = 200 * time.Millisecond
	h := newHarnessOpts(t, &toolset.Options{Timeouts: &sandbox.Timeouts{VM: call, Mount: 2 * call, Call: call}})
	h.mount(canaryCode)
	m := h.mount(`return { name: 'spinner', inject: ['timer'], apply(ctx) {
		ctx.setInterval(() => { const t = Date.now(); while (Date.now() - t < 150) {} }, 1)
	} }`)
	defer h.mustCall("cordis_unmount", map[string]string{"id": m.ID})
	time.Sleep(5 * call) // three strikes, and the share's delays between them
	for i := range 5 {
		start := time.Now()
		if _, err := h.tools.Call(context.Background(), "canary_probe", json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 50*time.Millisecond {
			t.Errorf("canary call %d waited %v for the lock: the interval still runs", i, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

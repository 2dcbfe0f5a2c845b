package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
)

// Two mounts cooperating through tools/change cannot keep one entry alive: A's tool
// registers and removes a tool in a loop (each emits tools/change), B's listener spins in
// every run, just under the share of CallTimeout that would strike it out. The time B
// runs is excused from A's bound only up to that bound once, so A's call ends with a
// timeout within three times CallTimeout (its own bound, the excuse, the run of B's
// listener in progress when it expires).
func TestExcuseIsBounded(t *testing.T) {
	if childtest.Parent(t) {
		return // an unbounded call would wedge the suite (within ends the process)
	}
	const call = 200 * time.Millisecond
	for _, tc := range []struct{ name, execute string }{
		{"sync", `() => { for (;;) { const off = ctx.tools.register({ name: 'flip', description: 'd', execute: () => 1 }); off() } }`},
		{"async", `async () => { for (;;) { const off = ctx.tools.register({ name: 'flip', description: 'd', execute: () => 1 }); off(); await null } }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, &Timeouts{VM: call, Mount: call, Call: call})
			b, bf := h.mustMount(`return { name: 'spinner', apply(ctx) {
				globalThis.runs = 0
				ctx.on('tools/change', () => { runs++; const t = Date.now(); while (Date.now() - t < 60) {} })
			} }`)
			defer h.unmount(b, bf)
			a, af := h.mustMount(`return { name: 'flipper', apply(ctx) {
				ctx.tools.register({ name: 'escape', description: 'd', execute: ` + tc.execute + ` })
			} }`)
			defer h.unmount(a, af)

			var err error
			start := time.Now()
			within(t, 10*time.Second, "the cooperating call", func() { _, err = h.call("escape", `{}`) })
			elapsed := time.Since(start)
			var te *TimeoutError
			if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "ran longer than CallTimeout") {
				t.Fatalf("err = %v, want the tool's CallTimeout", err)
			}
			// Three bounds, plus scheduling slack on a busy machine.
			if limit := 3*call + 300*time.Millisecond; elapsed > limit {
				t.Errorf("the call ran %v, want at most %v", elapsed, limit)
			}
			// The listener did run, and the excuse did apply: A outlived its own bound.
			if runs := h.eval(b, `runs`); runs == "0" || elapsed < call+call/2 {
				t.Errorf("listener runs %s, call %v: the excuse did not apply", runs, elapsed)
			}
			if err := h.serves(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

package toolset_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// Two mounts cooperating through tools/change cannot keep one tool call running past a
// small multiple of CallTimeout: the flipper registers and removes a tool in a loop (each
// change emits tools/change), the spinner's listener spends just under half the bound in
// every run, which is not charged to the flipper's call — but only up to that bound once.
// It runs in a child process: before the cap the call never ended.
func TestCooperatingMountsCannotEscapeTheCallBound(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	const call = 200 * time.Millisecond
	h := newHarnessOpts(t, &toolset.Options{Timeouts: &sandbox.Timeouts{VM: call, Mount: call, Call: call}})
	spinner := h.mount(`return { name: 'spinner', apply(ctx) {
		ctx.on('tools/change', () => { const t = Date.now(); while (Date.now() - t < 60) {} })
	} }`)
	flipper := h.mount(`return { name: 'flipper', apply(ctx) {
		ctx.tools.register({ name: 'escape', description: 'flips a tool forever', parameters: { type: 'object' },
			execute: () => { for (;;) { const off = ctx.tools.register({ name: 'flip', description: 'd', parameters: { type: 'object' }, execute: () => 1 }); off() } } })
	} }`)
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := h.tools.Call(context.Background(), "escape", json.RawMessage(`{}`))
		done <- err
	}()
	select {
	case err := <-done:
		elapsed := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "ran longer than CallTimeout") {
			t.Fatalf("err = %v, want the call's CallTimeout", err)
		}
		if limit := 3*call + 300*time.Millisecond; elapsed > limit {
			t.Errorf("the call ran %v, want at most %v (3 × CallTimeout and slack)", elapsed, limit)
		}
	case <-time.After(10 * time.Second):
		panic("the cooperating call still runs after 10s: the excuse is unbounded")
	}
	h.mustCall("cordis_unmount", map[string]string{"id": flipper.ID})
	h.mustCall("cordis_unmount", map[string]string{"id": spinner.ID})
	if !strings.Contains(h.inspect("tools", ""), "cordis_mount") {
		t.Errorf("the cordis tools are gone:\n%s", h.inspect("tools", ""))
	}
}

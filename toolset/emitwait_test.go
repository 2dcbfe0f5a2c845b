package toolset_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// linesWith counts the lines of log that contain every one of subs.
func linesWith(log string, subs ...string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		all := true
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			n++
		}
	}
	return n
}

// A Go Emit of an emit-mode event, through the generated façade, returns once a mount's
// async listener has run its synchronous part: it never waits for the listener's promise,
// whose rejection is logged once with the mount id. A callback of the generated timer
// service is delivered the same way.
func TestGoEmitDoesNotAwaitMountListener(t *testing.T) {
	const call = 300 * time.Millisecond
	var logs syncBuffer
	h := newHarnessOpts(t, &toolset.Options{Timeouts: &sandbox.Timeouts{VM: call, Mount: call, Call: call},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	m := h.mount(`return { name: 'async-listener', inject: ['timer'], apply(ctx) {
		let runs = 0
		ctx.on('tools/change', async (tool) => {
			if (tool === 'go-hang') { runs++; await new Promise(() => {}) }
			if (tool === 'go-reject') { await null; throw new Error('late rejection of ' + tool) }
		})
		ctx.timer.setTimeout(1, async () => { await null; throw new Error('timer callback rejection') })
		ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object' }, execute: () => ({ runs }) })
	} }`)
	defer h.mustCall("cordis_unmount", map[string]string{"id": m.ID})

	for i := range 3 {
		start := time.Now()
		kit.ToolsChange.Emit(h.root, kit.ToolsChangeEvent{Tool: "go-hang", Registered: true})
		if d := time.Since(start); d > call/3 {
			t.Errorf("emit %d took %v: it waited for the listener's promise (CallTimeout %v)", i, d, call)
		}
	}
	out, err := h.tools.Call(context.Background(), "probe", json.RawMessage(`{}`))
	if err != nil || string(out) != `{"runs":3}` {
		t.Errorf("probe = %s, %v; want every emit to have run the listener", out, err)
	}

	kit.ToolsChange.Emit(h.root, kit.ToolsChangeEvent{Tool: "go-reject", Registered: true})
	for _, msg := range []string{"late rejection of go-reject", "timer callback rejection"} {
		if !waitFor(time.Second, func() bool { return linesWith(logs.String(), msg) > 0 }) {
			t.Fatalf("%q was not logged:\n%.3000s", msg, logs.String())
		}
	}
	time.Sleep(50 * time.Millisecond) // a second report would come by now
	log := logs.String()
	if n := linesWith(log, "late rejection of go-reject", "mount="+m.ID, `a listener of \"tools/change\"`); n != 1 {
		t.Errorf("the listener's rejection was logged %d times with the mount and the event, want once:\n%.3000s", n, log)
	}
	if n := linesWith(log, "timer callback rejection", "mount="+m.ID, "timer.setTimeout"); n != 1 {
		t.Errorf("the timer callback's rejection was logged %d times with the mount and the method, want once:\n%.3000s", n, log)
	}
}

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

package toolset_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// syncBuffer is a log sink safe for the goroutines that log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestTeardownBound unmounts mounts whose effect disposers each hang or spin just under
// CallTimeout: the unmount takes about Limits.Teardown in total (not disposers ×
// CallTimeout), reports the abandoned disposers, and still removes every Go-side
// registration of the mount; disposers registered before the bound ran out did run.
func TestTeardownBound(t *testing.T) {
	const call = 200 * time.Millisecond
	const teardown = 2 * call // the default, Limits.Teardown = 2×CallTimeout
	for _, tc := range []struct {
		name, disposer string
	}{
		{"never settles", "() => new Promise(() => {})"},
		{"spins under the bound", "() => { const t = Date.now(); while (Date.now() - t < 150) {} }"},
		{"spins past the bound", "() => { for (;;) {} }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncBuffer
			h := newHarnessOpts(t, &toolset.Options{Timeouts: &sandbox.Timeouts{VM: call, Mount: 2 * call, Call: call},
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			h.mount(canaryCode)
			before := h.runtimeState()
			const n = 12
			m := h.mount(fmt.Sprintf(`return { name: 'slow-teardown', inject: ['timer'], apply(ctx) {
				ctx.effect(() => console.log('first disposer ran')) // registered first: runs last, abandoned
				for (let i = 0; i < %d; i++) ctx.effect(%s)
				ctx.effect(() => console.log('last disposer ran')) // runs first
				ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object' }, execute: () => 1 })
				ctx.provide('slowsvc', { x: 1 })
				ctx.on('tools/change', () => {})
				ctx.setInterval(() => {}, 5)
			} }`, n, tc.disposer))
			start := time.Now()
			_, err := h.call("cordis_unmount", map[string]string{"id": m.ID})
			took := time.Since(start)
			if err == nil {
				t.Fatal("unmount reported no abandoned disposers")
			}
			contains(t, err.Error(), m.ID+" was removed", "effect disposers did not finish within the "+teardown.String()+" teardown bound", "Limits.Teardown", "abandoned")
			if took > teardown+3*call {
				t.Errorf("unmount took %v, want about the teardown bound %v (unbounded: %d × %v)", took, teardown, n, call)
			}
			if got := h.runtimeState(); got != before {
				t.Errorf("the unmounted mount left registrations behind:\nbefore:\n%s\nafter:\n%s", before, got)
			}
			if tmp := h.inspect("temporary", ""); strings.Contains(tmp, m.ID) {
				t.Errorf("%s still listed:\n%s", m.ID, tmp)
			}
			h.checkCanary()
			if _, err := h.tools.Call(context.Background(), "probe", json.RawMessage(`{}`)); err == nil {
				t.Error("the mount's tool is still callable")
			}
			out := logs.String()
			if !strings.Contains(out, "last disposer ran") {
				t.Errorf("the disposer that ran before the bound was spent did not run:\n%s", out)
			}
			if strings.Contains(out, "first disposer ran") {
				t.Errorf("a disposer ran after the teardown bound was spent:\n%s", out)
			}
		})
	}
}

// TestTeardownBoundOption checks that Limits.Teardown is reachable from the toolset options
// and that a teardown within it reports nothing.
func TestTeardownBoundOption(t *testing.T) {
	const call = 100 * time.Millisecond
	h := newHarnessOpts(t, &toolset.Options{Timeouts: &sandbox.Timeouts{VM: call, Mount: 2 * call, Call: call},
		Limits: &sandbox.Limits{Teardown: 5 * call}})
	quick := h.mount(`return (ctx) => { for (let i = 0; i < 50; i++) ctx.effect(async () => { await null }) }`)
	h.mustCall("cordis_unmount", map[string]string{"id": quick.ID})

	slow := h.mount(`return (ctx) => { for (let i = 0; i < 8; i++) ctx.effect(() => { const t = Date.now(); while (Date.now() - t < 90) {} }) }`)
	start := time.Now()
	_, err := h.call("cordis_unmount", map[string]string{"id": slow.ID})
	took := time.Since(start)
	if err == nil {
		t.Fatal("want abandoned disposers reported")
	}
	contains(t, err.Error(), "did not finish within the 500ms teardown bound")
	if took < 4*call || took > 9*call {
		t.Errorf("unmount took %v, want about the 500ms teardown bound", took)
	}
}

// TestUnmountCapsCleanupErrors: a mount whose many disposers all throw gets an unmount
// error that names the first few and counts the rest, not one line per disposer.
func TestUnmountCapsCleanupErrors(t *testing.T) {
	h := newHarness(t)
	m := h.mount(`return (ctx) => { for (let i = 0; i < 30; i++) ctx.effect(() => { throw new Error('disposer ' + i) }) }`)
	_, err := h.call("cordis_unmount", map[string]string{"id": m.ID})
	if err == nil {
		t.Fatal("want the disposers' errors reported")
	}
	msg := err.Error()
	contains(t, msg, "disposer 29", "… and 22 more cleanup errors")
	if n := strings.Count(msg, "Error: disposer"); n != 8 {
		t.Errorf("%d disposer errors listed, want 8:\n%s", n, msg)
	}
}

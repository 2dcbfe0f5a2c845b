package toolset_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// toolset.New refuses what sandbox.New refuses, with the sandbox's error (one check, in
// sandbox.Options.Validate), and starts nothing.
func TestNewRejectsInvalidOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *toolset.Options
		want string
	}{
		{"negative timeout", &toolset.Options{Timeouts: &sandbox.Timeouts{Mount: -time.Second}},
			"toolset: invalid Options: sandbox: Timeouts.Mount is -1s: it must be positive, or zero for the default (10s)"},
		{"negative limit", &toolset.Options{Limits: &sandbox.Limits{MaxTools: -1}},
			"toolset: invalid Options: sandbox: Limits.MaxTools is -1: it must be positive, or zero for the default (256)"},
		{"share over 100", &toolset.Options{Limits: &sandbox.Limits{MaxTimerShare: 101}},
			"Limits.MaxTimerShare is 101: it is a percentage of wall time, at most 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			defer root.Fiber().Dispose(context.Background())
			ts, err := toolset.New(root, tc.opts)
			if err == nil {
				ts.Dispose(context.Background())
				t.Fatalf("New succeeded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want an error containing %q", err, tc.want)
			}
			if tools, _ := kit.ToolsService.Get(root); tools != nil {
				if _, ok := tools.Get("cordis_mount"); ok {
					t.Error("cordis_mount is registered after a refused New")
				}
			}
		})
	}
}

// Options.Timeouts, Limits and OnError reach the sandbox: the loop uses the given bounds,
// and an unhandled rejection in a mount is handed to OnError with the mount id.
func TestOptionsReachTheSandbox(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]string{}
	h := newHarnessOpts(t, &toolset.Options{
		Timeouts: &sandbox.Timeouts{Call: 700 * time.Millisecond},
		Limits:   &sandbox.Limits{MaxTools: 1},
		OnError: func(mount string, err error) {
			mu.Lock()
			defer mu.Unlock()
			got[mount] = append(got[mount], err.Error())
		},
	})
	contains(t, h.mountErr(`return (ctx) => { for (const n of ['a', 'b']) ctx.tools.register({ name: n, description: 'd', parameters: { type: 'object' }, execute: () => 1 }) }`),
		"(Limits.MaxTools)")
	h.mount(`return (ctx) => { ctx.tools.register({ name: 'spin', description: 'd', parameters: { type: 'object' }, execute: () => { for (;;) {} } }) }`)
	if _, err := h.call("spin", map[string]any{}); err == nil || !strings.Contains(err.Error(), "ran longer than CallTimeout (700ms)") {
		t.Errorf("spin: %v, want the given CallTimeout (700ms)", err)
	}
	m := h.mount(`Promise.reject(new Error('nobody awaits me')); return (ctx) => {}`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		errs := got[m.ID]
		mu.Unlock()
		if len(errs) > 0 {
			if !strings.Contains(strings.Join(errs, "\n"), "nobody awaits me") {
				t.Fatalf("OnError(%s) got %q, want the rejection", m.ID, errs)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("OnError never called for %s; calls: %v", m.ID, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

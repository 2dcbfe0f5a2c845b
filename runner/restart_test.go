package runner

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// A restart of the running Package replaces the working run whatever its host half holds:
// nothing (the new half starts beside it), a service (the old run is retracted first) or a
// tool (the new half clashes on its name, so the old run is retracted and the half started
// again). The answer is the new run, the old one is retracted before the new one is
// announced, and the old run's id is stale.
func TestRestartReplacesTheWorkingRun(t *testing.T) {
	tests := []struct{ name, code, tool string }{
		{"holds nothing", "harness.handle('now', () => 42);\nreturn () => {}", ""},
		{"provides a service", clockHost, ""},
		{"registers a tool", fmt.Sprintf(toolHost, "1"), "clock_add"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := newToolEnv(t)
			e, ctx := te.e, as("s1")
			d := e.define(newPlugin("clock"), tt.code, "")
			if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
				t.Fatal(err)
			}
			oldID, oldCap, _ := e.r.RunCapability(ctx, d.PluginID)
			e.takeEvents()
			out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
			if err != nil || out.Status != "running" || out.PluginRunID != "run-2" || out.CurrentPackageID != d.PackageID {
				t.Fatalf("restart = %+v, %v", out, err)
			}
			if ev := e.takeEvents(); !slices.Equal(ev, []string{"retract clock-1/pkg-1 run-1", "package clock-1/pkg-1 run-2"}) {
				t.Fatalf("restart events = %v", ev)
			}
			if _, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: oldID, Capability: oldCap, Method: "now"}); !hasCode(err, InvokeStaleRun) {
				t.Fatalf("Invoke of the replaced run = %v", err)
			}
			if tt.tool != "" && !te.registered(tt.tool) {
				t.Fatalf("%s is not registered after the restart", tt.tool)
			}
			if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "running" || s.ActiveRun == nil || s.ActiveRun.PluginRunID != "run-2" {
				t.Fatalf("inspect after the restart: %+v", s)
			}
		})
	}
}

// While a restart's new half starts beside the working run, the working run still answers;
// a stop then cancels the start and stops the working run, so nothing of the Plugin runs.
func TestStopDuringRestartBeside(t *testing.T) {
	h := &fakeHost{}
	e := newEnv(t, &Options{Host: h})
	ctx := as("s1")
	d := e.define(newPlugin("clock"), "return () => {}", "")
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	runID, capa, _ := e.r.RunCapability(ctx, d.PluginID)
	h.mu.Lock()
	h.gate, h.entered = make(chan struct{}), make(chan struct{}, 1)
	h.mu.Unlock()
	done := startBlocked(t, e, h, d.PluginID, d.PackageID)
	if _, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: runID, Capability: capa, Method: "echo"}); err != nil || h.running() != 1 {
		t.Fatalf("the working run while its restart starts: invoke %v, %d halves", err, h.running())
	}
	if _, err := e.r.Stop(ctx, dynamic.StopInput{PluginID: d.PluginID}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; ReasonOf(err) != ReasonCancelled || !strings.Contains(err.Error(), "was stopped while its host half was starting") {
		t.Fatalf("the restart answered %v", err)
	}
	if n := h.running(); n != 0 {
		t.Fatalf("%d host halves run after the stop", n)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{"package clock-1/pkg-1 run-1", "retract clock-1/pkg-1 run-1"}) {
		t.Fatalf("events = %v", ev)
	}
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.ActiveRun != nil || s.State == "running" || e.plugin(d.PluginID).Running {
		t.Fatalf("after the stop: %+v", s)
	}
}

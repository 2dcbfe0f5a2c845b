package runner

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

const clockHost = `harness.handle('now', (args) => ({ t: 42, args }));
return { name: 'clock', apply(ctx) { ctx.provide('clock', { now: () => 42 }) } }`

func TestRunHostOnlyLifecycle(t *testing.T) {
	e := newEnv(t, nil)
	d := e.define(newPlugin("clock"), clockHost, "")
	ctx := as("s1")
	out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "running" || out.PluginRunID != "run-1" || out.CurrentPackageID != "pkg-1" || out.NextPackageID != "" || out.Mode != dynamic.ModeRun ||
		out.Host.Status != dynamic.HalfRunning || !slices.Equal(out.Host.Provides, []string{"clock"}) || !slices.Equal(out.Host.Handlers, []string{"now"}) || out.Client.Status != dynamic.HalfAbsent {
		t.Fatalf("Run = %+v", out)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{"package clock-1/pkg-1 run-1"}) {
		t.Fatalf("events = %v", ev)
	}
	runID, capa, err := e.r.RunCapability(ctx, d.PluginID)
	if err != nil || runID != "run-1" || capa == "" {
		t.Fatalf("RunCapability = %q, %q, %v", runID, capa, err)
	}
	res, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: runID, Capability: capa, Method: "now", Args: json.RawMessage(`{"x":1}`)})
	if err != nil || string(res) != `{"t":42,"args":{"x":1}}` {
		t.Fatalf("Invoke = %s, %v", res, err)
	}

	// Update to a new Package: the old run is retracted before the new one starts.
	d2 := e.define(existing(d.PluginID), strings.Replace(clockHost, "42", "43", 2), "")
	out, err = e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d2.PackageID, Mode: dynamic.ModeUpdate})
	if err != nil || out.Status != "running" || out.PluginRunID != "run-2" || out.CurrentPackageID != "pkg-2" || out.Mode != dynamic.ModeUpdate {
		t.Fatalf("update = %+v, %v", out, err)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{"retract clock-1/pkg-1 run-1", "package clock-1/pkg-2 run-2"}) {
		t.Fatalf("update events = %v", ev)
	}
	if _, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: runID, Capability: capa, Method: "now"}); !hasCode(err, InvokeStaleRun) {
		t.Fatalf("Invoke of the old run = %v, want stale-run", err)
	}

	// Stop keeps the definition; a second stop succeeds too.
	for range 2 {
		if _, err := e.r.Stop(ctx, dynamic.StopInput{PluginID: d.PluginID}); err != nil {
			t.Fatal(err)
		}
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{"retract clock-1/pkg-2 run-2"}) {
		t.Fatalf("stop events = %v", ev)
	}
	s, err := e.inspectPlugin(ctx, d.PluginID)
	if err != nil || s.State != "stopped" || s.CurrentPackageID != "pkg-2" || s.LatestRun.Status != dynamic.RunStopped || len(s.Packages) != 2 {
		t.Fatalf("after stop: %+v, %v", s, err)
	}
	u, err := e.r.Undefine(ctx, dynamic.UndefineInput{PluginID: d.PluginID})
	if err != nil || u.WasRunning {
		t.Fatalf("Undefine = %+v, %v", u, err)
	}
	if _, err := e.r.Undefine(ctx, dynamic.UndefineInput{PluginID: d.PluginID}); ReasonOf(err) != ReasonPluginMissing {
		t.Fatalf("second Undefine = %v, want plugin-missing", err)
	}
	if n := len(e.r.group.Children()); n != 0 {
		t.Fatalf("group has %d children after undefine", n)
	}
}

func hasCode(err error, c InvokeCode) bool {
	ie, ok := err.(*InvokeError)
	return ok && ie.Code == c
}

func TestRunModeRules(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as("s1")
	d1 := e.define(newPlugin("clock"), "return () => {}", "")
	d2 := e.define(existing(d1.PluginID), "return () => {}", "")
	tests := []struct {
		pkg  string
		mode dynamic.Mode
		want string
	}{
		{"pkg-9", dynamic.ModeRun, `plugin clock-1 has no package "pkg-9"`},
		{d1.PackageID, "go", `mode must be "run" or "update"; got "go"`},
		{d1.PackageID, dynamic.ModeUpdate, `clock-1 has no successful version yet, so there is nothing to update from; use mode "run" for its first activation`},
	}
	for _, tt := range tests {
		if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: tt.pkg, Mode: tt.mode}); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Run(%s, %s) = %v, want %q", tt.pkg, tt.mode, err, tt.want)
		}
	}
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d1.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	after := []struct {
		pkg  string
		mode dynamic.Mode
		want string
	}{
		{d1.PackageID, dynamic.ModeUpdate, `pkg-1 is already the current Package of clock-1; use mode "run" to restart it`},
		{d2.PackageID, dynamic.ModeRun, `pkg-2 differs from the current Package pkg-1 of clock-1; use mode "update" to switch to it`},
	}
	for _, tt := range after {
		if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: tt.pkg, Mode: tt.mode}); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Run(%s, %s) = %v, want %q", tt.pkg, tt.mode, err, tt.want)
		}
	}
	// A restart of the current Package gets a fresh run id.
	out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d1.PackageID, Mode: dynamic.ModeRun})
	if err != nil || out.PluginRunID != "run-2" {
		t.Fatalf("restart = %+v, %v", out, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.r.Run(cctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d1.PackageID, Mode: dynamic.ModeRun}); err == nil ||
		err.Error() != "cordis_run was cancelled before the activation started; nothing changed" {
		t.Errorf("cancelled Run = %v", err)
	}
}

// A failed update whose old run provides a service (so it is stopped before the new half
// starts) leaves nothing running and says so; rollback runs current and clears next; retry
// updates with next. An update beside the old run is in restart_test.go.
func TestPointerRules(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as("s1")
	d1 := e.define(newPlugin("clock"), clockHost, "")
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d1.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	bad := e.define(existing(d1.PluginID), "throw new Error('broken')", "")
	_, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: bad.PackageID, Mode: dynamic.ModeUpdate})
	want := `the host half of clock-1/pkg-2 (run-2) failed to start: clock-1: Error: broken`
	if err == nil || !strings.HasPrefix(err.Error(), want) || ReasonOf(err) != ReasonHostHalfFailed ||
		!strings.Contains(err.Error(), `Nothing of clock-1 is running now: its previous run run-1 (pkg-1) was stopped before the new half started. Roll back with cordis_run {pluginId:"clock-1", packageId:"pkg-1", mode:"run"}`) {
		t.Fatalf("failed update = %v", err)
	}
	p := e.plugin(d1.PluginID)
	if p.Current != "pkg-1" || p.Next != "pkg-2" || p.Latest.Status != dynamic.RunFailed || p.Latest.Error.Phase != dynamic.PhaseHostLoad || p.Latest.Host.Status != dynamic.HalfFailed {
		t.Fatalf("after failed update: current %s next %s latest %+v", p.Current, p.Next, p.Latest)
	}
	if s, _ := e.inspectPlugin(ctx, d1.PluginID); s.State != "failed" || s.ActiveRun != nil || s.LatestRun.Error == nil {
		t.Fatalf("inspect after failed update: %+v", s)
	}
	// Rollback: run current; next is cleared.
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: "pkg-1", Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	if p := e.plugin(d1.PluginID); p.Current != "pkg-1" || p.Next != "" {
		t.Fatalf("after rollback: current %s next %s", p.Current, p.Next)
	}
	// Retry: update with the (fixed) next Package.
	fixed := e.define(existing(d1.PluginID), "return () => {}", "")
	if out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: fixed.PackageID, Mode: dynamic.ModeUpdate}); err != nil || out.CurrentPackageID != fixed.PackageID {
		t.Fatalf("retry = %+v, %v", out, err)
	}
}

func TestInvokeCodes(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}})
	ctx := as("s1")
	d := e.define(newPlugin("clock"), "return () => {}", "")
	if _, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: "run-1", Capability: "x", Method: "echo"}); !hasCode(err, InvokePluginNotRunning) ||
		err.Error() != "clock-1 is not running: it has no active host half (it was stopped or removed)" {
		t.Fatalf("before run: %v", err)
	}
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	_, capa, _ := e.r.RunCapability(ctx, d.PluginID)
	disconnect := e.r.Connect("s1")
	defer disconnect()
	tests := []struct {
		run, capa, method, args string
		code                    InvokeCode
		msg                     string
	}{
		{"run-0", "x", "echo", "1", InvokeStaleRun, `host.call("echo") belongs to activation run-0 of clock-1, which is no longer active (the live run is run-1); reload the client half`},
		{"run-1", "guess", "echo", "1", InvokeForbidden, "the capability does not belong to run run-1 of clock-1: only a page that loaded this run (getClientCode) may call its handlers"},
		{"run-1", capa, "nope", "1", InvokeMethodNotFound, `clock-1 (run-1) registered no host method "nope"; the host half must declare it with harness.handle("nope", async (args) => …)`},
		{"run-1", capa, "echo", "{", InvokeBadArgs, `host.call("echo") on clock-1: the arguments are not JSON; pass JSON data, or omit them (the handler receives null)`},
		{"run-1", capa, "fail", "1", InvokeHandlerError, `host.call("fail") failed inside the host handler of clock-1 (run-1): handler broke`},
		{"run-1", capa, "fail", "2", InvokeHandlerError, `host.call("fail") failed inside the host handler of clock-1 (run-1): handler broke`},
	}
	for _, tt := range tests {
		_, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: tt.run, Capability: tt.capa, Method: tt.method, Args: json.RawMessage(tt.args)})
		if !hasCode(err, tt.code) || err.Error() != tt.msg {
			t.Errorf("Invoke(%s, %s) = %v, want %s: %s", tt.run, tt.method, err, tt.code, tt.msg)
		}
	}
	if out, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: "run-1", Capability: capa, Method: "echo"}); err != nil || string(out) != "null" {
		t.Errorf("Invoke with no args = %s, %v; want null", out, err)
	}
	// The handler error steered the owner once, though it failed twice.
	msgs := e.takeMessages()
	if len(msgs) != 1 || msgs[0].Kind != dynamic.MessageSteer || msgs[0].Session != "s1" || !strings.HasPrefix(msgs[0].Text, `The host handler "fail" of clock-1 (run-1) failed when the client called host.call("fail"): handler broke`) {
		t.Fatalf("messages = %+v", msgs)
	}
}

package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// startBlocked begins a host-only run whose host start blocks in the fake host; it
// returns the channel the run's result arrives on.
func startBlocked(t *testing.T, e *env, h *fakeHost, pluginID, pkg string) chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: pluginID, PackageID: pkg, Mode: dynamic.ModeRun})
		done <- err
	}()
	<-h.entered
	return done
}

func TestStopDuringStart(t *testing.T) {
	for _, remove := range []bool{false, true} {
		h := &fakeHost{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
		e := newEnv(t, &Options{Host: h})
		d := e.define(newPlugin("clock"), "return () => {}", "")
		done := startBlocked(t, e, h, d.PluginID, d.PackageID)
		var err error
		if remove {
			var u dynamic.UndefineOutput
			u, err = e.r.Undefine(as("s1"), dynamic.UndefineInput{PluginID: d.PluginID})
			if u.WasRunning {
				t.Error("undefine during start: wasRunning true, but nothing had started")
			}
		} else {
			_, err = e.r.Stop(as("s1"), dynamic.StopInput{PluginID: d.PluginID})
		}
		if err != nil {
			t.Fatalf("remove=%v: %v", remove, err)
		}
		// Stop returned: the start is over, and nothing of it runs.
		if runErr := <-done; ReasonOf(runErr) != ReasonHostHalfFailed && ReasonOf(runErr) != ReasonCancelled {
			t.Fatalf("remove=%v: the run answered %v", remove, runErr)
		}
		if n := h.running(); n != 0 {
			t.Fatalf("remove=%v: %d host halves run after the stop", remove, n)
		}
		if ev := e.takeEvents(); slices.Contains(ev, "package clock-1/pkg-1 run-1") {
			t.Fatalf("remove=%v: events %v", remove, ev)
		}
		if !remove {
			if s, _ := e.inspectPlugin(as("s1"), d.PluginID); s.ActiveRun != nil || s.State == "running" {
				t.Fatalf("after stop: %+v", s)
			}
		}
	}
}

// In-flight starts are keyed by attempt: a start of another Package is refused without
// touching the attempt in flight; the same Package attaches.
func TestInFlightKeyedByPackage(t *testing.T) {
	h := &fakeHost{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	e := newEnv(t, &Options{Host: h})
	d := e.define(newPlugin("clock"), "return () => {}", "")
	d2 := e.define(existing(d.PluginID), "return () => {}", "")
	done := startBlocked(t, e, h, d.PluginID, d.PackageID)
	res := e.r.RunHostHalf(context.Background(), page.RunHostHalfArgs{Session: "s1", PluginID: d.PluginID, PackageID: d2.PackageID, Mode: dynamic.ModeRun})
	if res.OK || res.Reason != ReasonTransitionInFlight || !strings.HasPrefix(res.Message, "clock-1 is already starting pkg-1 (run-1)") {
		t.Fatalf("conflicting start = %+v", res)
	}
	if p := e.plugin(d.PluginID); p.Latest.PluginRunID != "run-1" || p.Next != "pkg-1" {
		t.Fatalf("the conflicting start touched the attempt: %+v next %s", p.Latest, p.Next)
	}
	attach := make(chan page.HostHalfResult, 1)
	go func() {
		attach <- e.r.RunHostHalf(context.Background(), page.RunHostHalfArgs{Session: "s1", PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	}()
	close(h.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if a := <-attach; !a.OK || a.PluginRunID != "run-1" || a.StartedHere {
		t.Fatalf("same-Package start = %+v, want an attach to run-1", a)
	}
	if n := h.running(); n != 1 {
		t.Fatalf("%d host halves run, want 1", n)
	}
}

// With ApproveHostHalves a host-only Package waits for a person too; the page's approval
// runs it and the runner settles the request itself.
func TestApproveHostHalves(t *testing.T) {
	e := newEnv(t, &Options{ApproveHostHalves: true})
	d := e.define(newPlugin("clock"), clockHost, "")
	out, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if err != nil || out.Status != "awaiting-approval" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	q := e.lastRequest()
	if q.HasClientHalf || !q.RequiresApproval {
		t.Fatalf("request = %+v", q)
	}
	if h := (testPage{e}).start(q, false); !h.OK || !h.StartedHere {
		t.Fatalf("approve = %+v", h)
	}
	if p := e.plugin(d.PluginID); p.Current != "pkg-1" || p.Latest.Status != dynamic.RunRunning {
		t.Fatalf("after approval: %+v", p.Latest)
	}
	if ev := e.takeEvents(); ev[len(ev)-1] != "resolved approval-1 approved" {
		t.Fatalf("events = %v", ev)
	}
	// Granted now: a restart runs inside the call.
	if out, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil || out.Status != "running" {
		t.Fatalf("granted restart = %+v, %v", out, err)
	}
}

// A direct run from the panel is settled by the page that started it, and the model is told.
func TestDirectRunSettle(t *testing.T) {
	e := newEnv(t, nil)
	d := e.define(newPlugin("clock"), clockHost, clientCode)
	h := e.r.RunHostHalf(context.Background(), page.RunHostHalfArgs{Session: "s1", PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if !h.OK || !h.StartedHere || h.Token == "" {
		t.Fatalf("direct runHostHalf = %+v", h)
	}
	if _, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); ReasonOf(err) != ReasonTransitionInFlight {
		t.Fatalf("model run while a page loads it = %v", err)
	}
	if acc := e.r.SettleUserRun(context.Background(), page.SettleUserRunArgs{Session: "s1", PluginID: d.PluginID, Resolution: page.Resolution{OK: true, PluginRunID: h.PluginRunID, Token: "guess"}}); acc.Accepted {
		t.Fatal("a settle without the starter's token was accepted")
	}
	if acc := e.r.SettleUserRun(context.Background(), page.SettleUserRunArgs{Session: "s1", PluginID: d.PluginID, Resolution: page.Resolution{OK: true, PluginRunID: h.PluginRunID, Token: h.Token}}); !acc.Accepted {
		t.Fatal(acc.Message)
	}
	if p := e.plugin(d.PluginID); p.Current != "pkg-1" || !p.Grants.Covers("pkg-1") {
		t.Fatalf("after direct run: %+v", p)
	}
	m := e.r.Messages("s1")
	if len(m) != 1 || m[0].Kind != dynamic.MessageInject || m[0].Text != "The user ran clock-1/pkg-1 (run-1) from the Cordis panel; it is running. currentPackageId is pkg-1." {
		t.Fatalf("messages = %+v", m)
	}
	if err := e.r.StopFromPanel(context.Background(), page.PanelPluginArgs{Session: "s1", PluginID: d.PluginID}); err != nil {
		t.Fatal(err)
	}
	if m := e.r.Messages("s1"); len(m) != 2 || m[1].Text != "The user stopped clock-1 from the Cordis panel; its Packages remain. currentPackageId is pkg-1." {
		t.Fatalf("messages = %+v", m)
	}
}

func TestDisposeStopsEverything(t *testing.T) {
	e := newEnv(t, nil)
	d := e.define(newPlugin("clock"), clockHost, "")
	if _, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	e.takeEvents()
	if err := e.r.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ev := e.takeEvents(); len(ev) != 0 {
		t.Fatalf("dispose emitted %v", ev)
	}
	if _, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); ReasonOf(err) != ReasonClosed {
		t.Fatalf("Run after Dispose = %v", err)
	}
	if !errors.Is(e.r.fiber.Err(), nil) || e.r.fiber.State().String() != "disposed" {
		t.Fatalf("runner fiber %s", e.r.fiber.State())
	}
}

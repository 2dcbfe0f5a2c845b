package runner

import (
	"slices"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// A ManualClock calls each deadline once its time comes, in the order they fall (ties in
// the order they were scheduled), reading the deadline's time while it runs; a stopped
// deadline is never called, and one a deadline schedules is called in the same Advance
// when it falls within it.
func TestManualClock(t *testing.T) {
	var c ManualClock
	t0 := c.Now()
	var got []string
	at := func(name string) func() {
		return func() { got = append(got, name+"@"+c.Now().Sub(t0).String()) }
	}
	c.AfterFunc(3*time.Second, at("c"))
	c.AfterFunc(time.Second, at("a"))
	c.AfterFunc(time.Second, at("a2"))
	stopped := c.AfterFunc(2*time.Second, at("stopped"))
	c.AfterFunc(2*time.Second, func() { got = append(got, "b@2s"); c.AfterFunc(500*time.Millisecond, at("nested")) })
	c.AfterFunc(10*time.Second, at("late"))
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop of a pending deadline must report true once, then false")
	}
	c.Advance(time.Second - time.Nanosecond)
	if len(got) != 0 || c.Waiting() != 5 {
		t.Fatalf("before any deadline: called %v, %d waiting", got, c.Waiting())
	}
	c.Advance(3*time.Second + time.Nanosecond)
	if want := []string{"a@1s", "a2@1s", "b@2s", "nested@2.5s", "c@3s"}; !slices.Equal(got, want) {
		t.Fatalf("called %v, want %v", got, want)
	}
	if d := c.Now().Sub(t0); d != 4*time.Second || c.Waiting() != 1 {
		t.Fatalf("after Advance: %s passed, %d waiting; want 4s and the late one", d, c.Waiting())
	}
}

// A run request expires exactly when the runner's clock reaches ApprovalTimeout after the
// model asked, not a nanosecond before; once a page starts one, the page has ClientTimeout
// from that moment to report its client half.
func TestApprovalExpiresAtTheDeadline(t *testing.T) {
	clock := &ManualClock{}
	e := newEnv(t, &Options{Clock: clock})
	ctx := as("s1")
	d := e.define(newPlugin("clock"), clockHost, clientCode)
	disconnect := e.r.Connect("s1")
	defer disconnect()

	if out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil || out.Status != "awaiting-approval" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	clock.Advance(DefaultApprovalTimeout - time.Nanosecond)
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "awaiting-approval" || e.sawEvent("resolved approval-1 expired") || e.messageCount() != 0 {
		t.Fatalf("a nanosecond before the deadline: state %s, events %v, %d messages", s.State, e.takeEvents(), e.messageCount())
	}
	clock.Advance(time.Nanosecond)
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "expired" {
		t.Fatalf("at the deadline: state %s, want expired", s.State)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{"request-run approval-1 clock-1/pkg-1 approval=true", "resolved approval-1 expired"}) {
		t.Fatalf("events = %v", ev)
	}
	if m := e.messageTexts(); !slices.Equal(m, []string{"steer: Cordis run request approval-1 for clock-1/pkg-1 (run-1) expired: nobody started it within 10m0s: no page of the Cordis panel is open, or the user did not answer. Nothing was started. currentPackageId is none. Ask the user to open the Cordis panel, then call cordis_run again."}) {
		t.Fatalf("messages = %q", m)
	}
	if n := clock.Waiting(); n != 0 {
		t.Fatalf("%d deadlines still scheduled after the expiry", n)
	}

	// Approved a minute before its deadline: the approval deadline is gone, and the page
	// has ClientTimeout from then on.
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(DefaultApprovalTimeout - time.Minute)
	if h := (testPage{e}).start(e.lastRequest(), false); !h.OK || !h.StartedHere {
		t.Fatalf("runHostHalf = %+v", h)
	}
	if n := clock.Waiting(); n != 1 {
		t.Fatalf("%d deadlines scheduled after the start, want the client half's alone", n)
	}
	clock.Advance(DefaultClientTimeout - time.Nanosecond)
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State == "expired" {
		t.Fatal("the started run expired before ClientTimeout passed")
	}
	e.takeEvents()
	clock.Advance(time.Nanosecond)
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "expired" || s.ActiveRun != nil {
		t.Fatalf("at the client deadline: %+v", s)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{"retract clock-1/pkg-1 run-2", "resolved approval-2 expired"}) {
		t.Fatalf("events at the client deadline = %v", ev)
	}
	if m := e.messageTexts(); len(m) != 1 || !slices.Contains(m, "steer: Cordis run request approval-2 for clock-1/pkg-1 (run-2) expired: the page that started it did not report its client half within 2m0s; the run was stopped. currentPackageId is none. Ask the user to open the Cordis panel, then call cordis_run again.") {
		t.Fatalf("messages at the client deadline = %q", m)
	}
}

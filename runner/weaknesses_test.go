package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// messageTexts returns the texts of the messages delivered since the last call.
func (e *env) messageTexts() []string {
	var texts []string
	for _, m := range e.takeMessages() {
		texts = append(texts, string(m.Kind)+": "+m.Text)
	}
	return texts
}

// docs/dynamic-plugins.md, "Activation": a host half that never settles — a synchronous
// loop, or an apply whose promise never settles — is bounded, and does not wedge its
// Plugin: a fixed Package of the same Plugin runs and stops normally afterwards.
func TestWeaknessNeverSettlingHostHalf(t *testing.T) {
	tests := []struct {
		name, code, want string
	}{
		{"loop", "while (true) {}", `the host half of spin-1/pkg-1 (run-1) failed to start: spin-1: evaluation of the mount code ran longer than VMTimeout (500ms) and was interrupted: context deadline exceeded. Fix the code, cordis_define a new Package on the same Plugin (plugin:{kind:"existing", pluginId:"spin-1"}) and cordis_run it.`},
		{"apply", "return { name: 'spin', apply(ctx) { return new Promise(() => {}) } }", `the host half of spin-1/pkg-1 (run-1) failed to start: plugin "spin": spin-1: apply (its promise did not settle) ran longer than MountTimeout (500ms) and was interrupted: context deadline exceeded. Fix the code, cordis_define a new Package on the same Plugin (plugin:{kind:"existing", pluginId:"spin-1"}) and cordis_run it.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			ctx := as("s1")
			d := e.define(newPlugin("spin"), tt.code, "")
			_, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
			if err == nil || ReasonOf(err) != ReasonHostHalfFailed || err.Error() != tt.want {
				t.Fatalf("Run = %v (%s)", err, ReasonOf(err))
			}
			if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "failed" || s.ActiveRun != nil {
				t.Fatalf("after the bounded start: %+v", s)
			}
			fixed := e.define(existing(d.PluginID), clockHost, "")
			out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: fixed.PackageID, Mode: dynamic.ModeRun})
			if err != nil || out.Status != "running" || out.PluginRunID != "run-2" || out.CurrentPackageID != fixed.PackageID {
				t.Fatalf("the run after the bounded start = %+v, %v", out, err)
			}
			if _, err := e.r.Stop(ctx, dynamic.StopInput{PluginID: d.PluginID}); err != nil {
				t.Fatal(err)
			}
			if ev := e.takeEvents(); !slices.Equal(ev, []string{"package spin-1/pkg-2 run-2", "retract spin-1/pkg-2 run-2"}) {
				t.Fatalf("events = %v", ev)
			}
			if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "stopped" || s.ActiveRun != nil {
				t.Fatalf("after stop: %+v", s)
			}
			if n := len(e.r.group.Children()); n != 0 {
				t.Fatalf("%d host halves left", n)
			}
		})
	}
}

// docs/dynamic-plugins.md, "Deadlines and limits": Options.ClientTimeout bounds the wait
// for a client half that needs no approval. A granted run request whose starting page
// never reports its client half, and a direct run from the panel whose page never reports,
// both expire after ClientTimeout: the run is retracted, the model is told, and the Plugin
// runs again normally. The runner's clock is a ManualClock: each run expires when the test
// moves it past ClientTimeout.
func TestWeaknessClientTimeout(t *testing.T) {
	clock := &ManualClock{}
	e := newEnv(t, &Options{ClientTimeout: 200 * time.Millisecond, Clock: clock})
	ctx := as("s1")
	pg := testPage{e}
	d := e.define(newPlugin("clock"), clockHost, clientCode)
	// The Package was granted before (as an approval with future versions would have).
	if _, err := e.r.Store().Update(context.Background(), d.PluginID, Change{Grant: d.PackageID}); err != nil {
		t.Fatal(err)
	}
	disconnect := e.r.Connect("s1")
	defer disconnect()

	out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if err != nil || out.Status != "starting" {
		t.Fatalf("granted Run = %+v, %v", out, err)
	}
	q := e.lastRequest()
	if q.RequiresApproval {
		t.Fatalf("a granted run asked for approval: %+v", q)
	}
	if h := pg.start(q, false); !h.OK || !h.StartedHere {
		t.Fatalf("runHostHalf = %+v", h)
	}
	clock.Advance(200*time.Millisecond - time.Nanosecond)
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State == "expired" || e.sawEvent("resolved approval-1 expired") {
		t.Fatal("the granted request expired before ClientTimeout passed")
	}
	clock.Advance(time.Nanosecond)
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "expired" {
		t.Fatalf("the granted request at its deadline: state %s, want expired", s.State)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{"request-run approval-1 clock-1/pkg-1 approval=false", "package clock-1/pkg-1 run-1",
		"retract clock-1/pkg-1 run-1", "resolved approval-1 expired"}) {
		t.Fatalf("events = %v", ev)
	}
	if m := e.messageTexts(); !slices.Equal(m, []string{"steer: Cordis run request approval-1 for clock-1/pkg-1 (run-1) expired: the page that started it did not report its client half within 200ms; the run was stopped. currentPackageId is none. Ask the user to open the Cordis panel, then call cordis_run again."}) {
		t.Fatalf("messages = %q", m)
	}
	if n := len(e.r.group.Children()); n != 0 {
		t.Fatalf("%d host halves left after the expiry", n)
	}

	// A direct run from the panel: its page starts it and never reports.
	h := e.r.RunHostHalf(context.Background(), page.RunHostHalfArgs{Session: "s1", PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if !h.OK || !h.StartedHere || h.PluginRunID != "run-2" {
		t.Fatalf("direct runHostHalf = %+v", h)
	}
	clock.Advance(200*time.Millisecond - time.Nanosecond)
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State == "expired" || e.sawEvent("retract clock-1/pkg-1 run-2") {
		t.Fatal("the direct run expired before ClientTimeout passed")
	}
	clock.Advance(time.Nanosecond)
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "expired" {
		t.Fatalf("the direct run at its deadline: state %s, want expired", s.State)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{"package clock-1/pkg-1 run-2", "retract clock-1/pkg-1 run-2"}) {
		t.Fatalf("direct run events = %v", ev)
	}
	if m := e.messageTexts(); !slices.Equal(m, []string{"inject: The user ran clock-1/pkg-1 (run-2) from the Cordis panel, and it expired: the page that started it did not report its client half within 200ms; the run was stopped. currentPackageId is none."}) {
		t.Fatalf("direct run messages = %q", m)
	}
	if a := e.plugin(d.PluginID).Latest; a.Error == nil || a.Error.Message != "the direct run run-2 from the Cordis panel expired: the page that started it did not report its client half within 200ms; the run was stopped" {
		t.Fatalf("direct run attempt = %+v", a)
	}

	// Neither expiry wedged the Plugin: it runs again.
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	pg.approve(t, e.lastRequest(), false)
	if p := e.plugin(d.PluginID); p.Current != d.PackageID || p.Latest.PluginRunID != "run-3" || p.Latest.Status != dynamic.RunRunning {
		t.Fatalf("after the expiries: current %s latest %+v", p.Current, p.Latest)
	}
}

// docs/dynamic-plugins.md, "Grants": revoking the grant of one Package leaves its live run
// running, and its next run asks for approval again.
func TestWeaknessRevokePackageGrant(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as("s1")
	pg := testPage{e}
	d := e.define(newPlugin("clock"), clockHost, clientCode)
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	h := pg.approve(t, e.lastRequest(), false)
	e.takeEvents()
	g, err := e.r.RevokeGrant(ctx, page.RevokeArgs{Session: "s1", PluginID: d.PluginID, PackageID: d.PackageID})
	if err != nil || len(g.Packages) != 0 || g.Future {
		t.Fatalf("RevokeGrant = %+v, %v", g, err)
	}
	if g, err := e.r.RevokeGrant(ctx, page.RevokeArgs{Session: "s1", PluginID: d.PluginID, PackageID: d.PackageID}); ReasonOf(err) != ReasonInvalid ||
		err.Error() != `revokeGrant: clock-1 has no grant for package "pkg-1"` || len(g.Packages) != 0 {
		t.Fatalf("second RevokeGrant = %+v, %v", g, err)
	}
	// The live run keeps running: nothing was retracted, and its handlers answer.
	if ev := e.takeEvents(); len(ev) != 0 {
		t.Fatalf("revoke emitted %v", ev)
	}
	if p := e.plugin(d.PluginID); p.Current != d.PackageID || p.Latest.Status != dynamic.RunRunning || p.Grants.Covers(d.PackageID) {
		t.Fatalf("after revoke: %+v", p)
	}
	if res, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: h.PluginRunID, Capability: h.Capability, Method: "now"}); err != nil || string(res) != `{"t":42,"args":null}` {
		t.Fatalf("Invoke after revoke = %s, %v", res, err)
	}
	// The next run asks again, and the live run stays until a page starts the new one.
	out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if err != nil || out.Status != "awaiting-approval" || !e.lastRequest().RequiresApproval {
		t.Fatalf("Run after revoke = %+v, %v", out, err)
	}
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.ActiveRun == nil || s.ActiveRun.PluginRunID != h.PluginRunID {
		t.Fatalf("the live run went while the new request waits: %+v", s)
	}
	if _, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: h.PluginRunID, Capability: h.Capability, Method: "now"}); err != nil {
		t.Fatalf("Invoke while the new request waits = %v", err)
	}
}

// docs/dynamic-plugins.md, "Activation": a restart of the running Package starts the new
// host half beside the working run and swaps only on success, so a restart that fails —
// declined, or whose host half fails — leaves the working run running, and the error and
// cordis_inspect_self say so. A restart that succeeds replaces the working run (retract,
// then the new run).
func TestWeaknessFailedRestartKeepsTheWorkingRun(t *testing.T) {
	h := &fakeHost{}
	e := newEnv(t, &Options{Host: h})
	ctx := as("s1")
	pg := testPage{e}
	d := e.define(newPlugin("clock"), "return () => {}", clientCode)
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	working := pg.approve(t, e.lastRequest(), false)
	alive := func(when string) {
		t.Helper()
		if _, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: working.PluginRunID, Capability: working.Capability, Method: "echo"}); err != nil || h.running() != 1 {
			t.Fatalf("the working run after %s: invoke %v, %d halves", when, err, h.running())
		}
	}

	// A declined restart: the working run keeps running.
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	if acc := pg.answer(e.lastRequest(), page.Resolution{Reason: ReasonRejected}); !acc.Accepted {
		t.Fatalf("decline refused: %s", acc.Message)
	}
	alive("a declined restart")
	if ev := e.takeEvents(); slices.Contains(ev, "retract clock-1/pkg-1 run-1") {
		t.Fatalf("a declined restart retracted the working run: %v", ev)
	}
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "running" || s.LatestRun.Status != dynamic.RunRejected {
		t.Fatalf("after a declined restart the Plugin reads %q with the latest run %s; want running, and the latest run rejected", s.State, s.LatestRun.Status)
	}

	// A restart whose host half fails (the fake host refuses every start from now on).
	h.mu.Lock()
	h.fail = errors.New("the host is out of memory")
	h.mu.Unlock()
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	res := pg.start(e.lastRequest(), false)
	want := `the host half of clock-1/pkg-1 (run-3) failed to start: the host is out of memory. The working run run-1 (pkg-1) of clock-1 keeps running: the new half was started beside it, and nothing was stopped. Fix the code, cordis_define a new Package on the same Plugin (plugin:{kind:"existing", pluginId:"clock-1"}) and cordis_run it.`
	if res.OK || res.Reason != ReasonHostHalfFailed || res.Message != want {
		t.Fatalf("failed restart = %+v", res)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{"request-run approval-3 clock-1/pkg-1 approval=false", "resolved approval-3 failed"}) {
		t.Fatalf("failed restart events = %v", ev)
	}
	alive("a failed restart")
	if m := e.r.Messages("s1"); m[len(m)-1].Text != "Cordis run of clock-1/pkg-1 (run-3) failed after cordis_run returned: host-half-failed: "+want+
		"\ncurrentPackageId is pkg-1, nextPackageId is pkg-1. Inspect it with cordis_inspect_self {pluginId:\"clock-1\", packageId:\"pkg-1\"}, fix the same Plugin with cordis_define plugin:{kind:\"existing\", pluginId:\"clock-1\"}, and cordis_run again." {
		t.Fatalf("the model was told %q", m[len(m)-1].Text)
	}
	s, _ := e.inspectPlugin(ctx, d.PluginID)
	if s.ActiveRun == nil || s.ActiveRun.PluginRunID != working.PluginRunID || s.CurrentPackageID != d.PackageID ||
		s.LatestRun.PluginRunID != "run-3" || s.LatestRun.Error == nil || s.LatestRun.Error.Message != want || s.State != "running" {
		t.Fatalf("inspect after the failed restart: %+v", s)
	}
	if p := e.plugin(d.PluginID); !p.Running {
		t.Fatal("Running is false while the working run runs")
	}
	// The working run's own failures still reach the model, though a later attempt is the latest.
	disconnect := e.r.Connect("s1")
	e.takeMessages()
	if _, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: working.PluginRunID, Capability: working.Capability, Method: "fail"}); !hasCode(err, InvokeHandlerError) {
		t.Fatalf("Invoke(fail) of the working run = %v", err)
	}
	if msgs := e.takeMessages(); len(msgs) != 1 || msgs[0].Kind != dynamic.MessageSteer || !strings.Contains(msgs[0].Text, `The host handler "fail" of clock-1 (run-1) failed`) {
		t.Fatalf("the working run's handler failure told the model %+v; want one steer", msgs)
	}
	disconnect()

	// A restart once the host recovers replaces the working run.
	h.mu.Lock()
	h.fail = nil
	h.mu.Unlock()
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	pg.approve(t, e.lastRequest(), false)
	if p := e.plugin(d.PluginID); p.Current != d.PackageID || p.Latest.PluginRunID != "run-4" || p.Latest.Status != dynamic.RunRunning || h.running() != 1 {
		t.Fatalf("after the restart: current %s latest %+v, %d halves", p.Current, p.Latest, h.running())
	}
	if ev := e.takeEvents(); !slices.Equal(ev[1:3], []string{"retract clock-1/pkg-1 run-1", "package clock-1/pkg-1 run-4"}) {
		t.Fatalf("restart events = %v", ev)
	}
	if _, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: working.PluginRunID, Capability: working.Capability, Method: "echo"}); !hasCode(err, InvokeStaleRun) {
		t.Fatalf("Invoke of the replaced run = %v", err)
	}
}

// docs/dynamic-plugins.md, "A run attempt's status": a render failure keeps a live run
// running — its status, and the steering of later runtime failures, which still reach the
// owner once each. A report without the run's capability is dropped.
func TestWeaknessRenderFailureKeepsTheRunLive(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}})
	ctx := as("s1")
	d := e.define(newPlugin("clock"), "return () => {}", clientCode)
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	h := testPage{e}.approve(t, e.lastRequest(), false)
	disconnect := e.r.Connect("s1")
	defer disconnect()
	e.takeMessages() // the run's completion
	report := page.ReportArgs{Session: "s1", PluginID: d.PluginID, PluginRunID: h.PluginRunID, Capability: h.Capability}
	forged := report
	forged.Capability = "guess"
	e.r.ReportRenderFailure(ctx, forged, dynamic.RenderFailure{Slot: "main", Message: "forged"})
	if m := e.messageTexts(); len(m) != 0 || e.plugin(d.PluginID).Latest.RenderFailure != nil {
		t.Fatalf("a forged report was taken: %q", m)
	}
	for range 2 {
		e.r.ReportRenderFailure(ctx, report, dynamic.RenderFailure{Slot: "main", Message: "TypeError: x is undefined", Stack: "at render"})
	}
	if m := e.messageTexts(); !slices.Equal(m, []string{"steer: The client UI of clock-1 (run-1) failed while rendering slot main and held its slot: TypeError: x is undefined\nat render\nFix it with a new Package (cordis_define on clock-1) and cordis_run mode \"update\"."}) {
		t.Fatalf("render failure messages = %q", m)
	}
	p := e.plugin(d.PluginID)
	if p.Latest.Status != dynamic.RunRunning || p.Current != d.PackageID || p.Latest.RenderFailure == nil || p.Latest.RenderFailure.Message != "TypeError: x is undefined" {
		t.Fatalf("after the render failure: %+v", p.Latest)
	}
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "running" || s.ActiveRun == nil {
		t.Fatalf("inspect after the render failure: %+v", s)
	}
	// Later runtime failures still steer, once each.
	for range 2 {
		if _, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: h.PluginRunID, Capability: h.Capability, Method: "fail"}); !hasCode(err, InvokeHandlerError) {
			t.Fatalf("Invoke(fail) = %v", err)
		}
	}
	msgs := e.takeMessages()
	if len(msgs) != 1 || msgs[0].Kind != dynamic.MessageSteer || !strings.HasPrefix(msgs[0].Text, `The host handler "fail" of clock-1 (run-1) failed when the client called host.call("fail"): handler broke`) {
		t.Fatalf("handler failure messages = %+v", msgs)
	}
}

// docs/dynamic-plugins.md, "Secrets: tickets, tokens and capabilities": page verbs do not
// trust predictable ids. A decline with a forged ticket, with another request's ticket, or
// of an unknown request is refused and changes nothing; getClientCode for another session
// or for a run that is not live is refused.
func TestWeaknessForgedDeclineAndClientCode(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as("s1")
	pg := testPage{e}
	a := e.define(newPlugin("clock"), clockHost, clientCode)
	b := e.define(newPlugin("note"), clockHost, clientCode)
	for _, d := range []dynamic.DefineOutput{a, b} {
		if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
			t.Fatal(err)
		}
	}
	e.mu.Lock()
	qa, qb := e.reqs[0], e.reqs[1]
	e.mu.Unlock()
	e.takeEvents()
	refusals := []struct {
		args page.ResolveArgs
		want string
	}{
		{page.ResolveArgs{RequestID: qa.RequestID, Ticket: "guess", Resolution: page.Resolution{Reason: ReasonRejected}}, "a decline of request " + qa.RequestID + " needs the ticket of its cordis/request-run event"},
		{page.ResolveArgs{RequestID: qa.RequestID, Ticket: qb.Ticket, Resolution: page.Resolution{Reason: ReasonRejected}}, "a decline of request " + qa.RequestID + " needs the ticket of its cordis/request-run event"},
		{page.ResolveArgs{RequestID: "approval-9", Ticket: qa.Ticket, Resolution: page.Resolution{Reason: ReasonRejected}}, "request approval-9 is not pending: it was answered, cancelled or expired"},
	}
	for _, tt := range refusals {
		if acc := e.r.ResolveRequestRun(context.Background(), tt.args); acc.Accepted || acc.Message != tt.want {
			t.Errorf("ResolveRequestRun(%s, ticket %q) = %+v, want refused: %s", tt.args.RequestID, tt.args.Ticket, acc, tt.want)
		}
	}
	for _, d := range []dynamic.DefineOutput{a, b} {
		if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "awaiting-approval" || s.PendingApproval == nil {
			t.Fatalf("%s after the refused declines: %+v", d.PluginID, s)
		}
	}
	if ev, m := e.takeEvents(), e.r.Messages("s1"); len(ev) != 0 || len(m) != 0 {
		t.Fatalf("refused declines emitted %v, told the model %+v", ev, m)
	}

	// Both requests still answer their own pages.
	if acc := pg.answer(qb, page.Resolution{Reason: ReasonRejected}); !acc.Accepted {
		t.Fatalf("the real decline was refused: %s", acc.Message)
	}
	h := pg.approve(t, qa, false)
	tests := []struct {
		args page.ClientCodeArgs
		want string
	}{
		{page.ClientCodeArgs{Session: "s2", PluginID: a.PluginID, PluginRunID: h.PluginRunID}, missing(a.PluginID).Error()},
		{page.ClientCodeArgs{Session: "s1", PluginID: a.PluginID, PluginRunID: "run-0"}, a.PluginID + " is not running activation run-0; reload the panel to see its live run"},
		{page.ClientCodeArgs{Session: "s1", PluginID: b.PluginID, PluginRunID: qb.RequestID}, b.PluginID + " is not running activation " + qb.RequestID + "; reload the panel to see its live run"},
	}
	for _, tt := range tests {
		if code, err := e.r.GetClientCode(context.Background(), tt.args); err == nil || err.Error() != tt.want || code != (page.ClientCode{}) {
			t.Errorf("GetClientCode(%+v) = %+v, %v; want %s", tt.args, code, err, tt.want)
		}
	}
	// After a restart, the old run id is stale too.
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: a.PluginID, PackageID: a.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	pg.approve(t, e.lastRequest(), false)
	if _, err := e.r.GetClientCode(context.Background(), page.ClientCodeArgs{Session: "s1", PluginID: a.PluginID, PluginRunID: h.PluginRunID}); ReasonOf(err) != ReasonNotRunning {
		t.Fatalf("GetClientCode of the replaced run = %v", err)
	}
}

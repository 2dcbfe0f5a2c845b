package runner

import (
	"context"
	"slices"
	"testing"
	"time"
)

// waitFor polls cond until it holds, failing the test after a few seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// messageTexts returns the texts of the messages delivered since the last call.
func (e *env) messageTexts() []string {
	var texts []string
	for _, m := range e.takeMessages() {
		texts = append(texts, string(m.Kind)+": "+m.Text)
	}
	return texts
}

// Spec §17.1: a host half that never settles — a synchronous loop, or an apply whose
// promise never settles — is bounded, and does not wedge its Plugin: a fixed Package of the
// same Plugin runs and stops normally afterwards.
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
			_, err := e.r.Run(ctx, RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: ModeRun})
			if err == nil || ReasonOf(err) != ReasonHostHalfFailed || err.Error() != tt.want {
				t.Fatalf("Run = %v (%s)", err, ReasonOf(err))
			}
			if s, _ := e.r.InspectPlugin(ctx, d.PluginID); s.State != "failed" || s.ActiveRun != nil {
				t.Fatalf("after the bounded start: %+v", s)
			}
			fixed := e.define(existing(d.PluginID), clockHost, "")
			out, err := e.r.Run(ctx, RunInput{PluginID: d.PluginID, PackageID: fixed.PackageID, Mode: ModeRun})
			if err != nil || out.Status != "running" || out.PluginRunID != "run-2" || out.CurrentPackageID != fixed.PackageID {
				t.Fatalf("the run after the bounded start = %+v, %v", out, err)
			}
			if _, err := e.r.Stop(ctx, PluginInput{PluginID: d.PluginID}); err != nil {
				t.Fatal(err)
			}
			if ev := e.takeEvents(); !slices.Equal(ev, []string{"package spin-1/pkg-2 run-2", "retract spin-1/pkg-2 run-2"}) {
				t.Fatalf("events = %v", ev)
			}
			if s, _ := e.r.InspectPlugin(ctx, d.PluginID); s.State != "stopped" || s.ActiveRun != nil {
				t.Fatalf("after stop: %+v", s)
			}
			if n := len(e.r.group.Children()); n != 0 {
				t.Fatalf("%d host halves left", n)
			}
		})
	}
}

// Spec §17.5: Options.ClientTimeout bounds the wait for a client half that needs no
// approval. A granted run request whose starting page never reports its client half, and a
// direct run from the panel whose page never reports, both expire after ClientTimeout: the
// run is retracted, the model is told, and the Plugin runs again normally.
func TestWeaknessClientTimeout(t *testing.T) {
	e := newEnv(t, &Options{ClientTimeout: 200 * time.Millisecond})
	ctx := as("s1")
	pg := page{e}
	d := e.define(newPlugin("clock"), clockHost, clientCode)
	// The Package was granted before (as an approval with future versions would have).
	if _, err := e.r.Store().Update(context.Background(), d.PluginID, Change{Grant: d.PackageID}); err != nil {
		t.Fatal(err)
	}
	disconnect := e.r.Connect("s1")
	defer disconnect()

	out, err := e.r.Run(ctx, RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: ModeRun})
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
	waitFor(t, "the granted request's expiry", func() bool {
		s, _ := e.r.InspectPlugin(ctx, d.PluginID)
		return s.State == "expired" && e.sawEvent("resolved approval-1 expired")
	})
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
	h := e.r.RunHostHalf(context.Background(), RunHostHalfArgs{AgentID: "s1", PluginID: d.PluginID, PackageID: d.PackageID, Mode: ModeRun})
	if !h.OK || !h.StartedHere || h.PluginRunID != "run-2" {
		t.Fatalf("direct runHostHalf = %+v", h)
	}
	waitFor(t, "the direct run's expiry", func() bool {
		s, _ := e.r.InspectPlugin(ctx, d.PluginID)
		return s.State == "expired" && e.sawEvent("retract clock-1/pkg-1 run-2")
	})
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
	if _, err := e.r.Run(ctx, RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: ModeRun}); err != nil {
		t.Fatal(err)
	}
	pg.approve(t, e.lastRequest(), false)
	if p := e.plugin(d.PluginID); p.Current != d.PackageID || p.Latest.PluginRunID != "run-3" || p.Latest.Status != StatusRunning {
		t.Fatalf("after the expiries: current %s latest %+v", p.Current, p.Latest)
	}
}

// Spec §17.6: revoking the grant of one Package leaves its live run running, and its next
// run asks for approval again.
func TestWeaknessRevokePackageGrant(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as("s1")
	pg := page{e}
	d := e.define(newPlugin("clock"), clockHost, clientCode)
	if _, err := e.r.Run(ctx, RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: ModeRun}); err != nil {
		t.Fatal(err)
	}
	h := pg.approve(t, e.lastRequest(), false)
	e.takeEvents()
	g, err := e.r.RevokeGrant(ctx, RevokeArgs{AgentID: "s1", PluginID: d.PluginID, PackageID: d.PackageID})
	if err != nil || len(g.Packages) != 0 || g.Future {
		t.Fatalf("RevokeGrant = %+v, %v", g, err)
	}
	if g, err := e.r.RevokeGrant(ctx, RevokeArgs{AgentID: "s1", PluginID: d.PluginID, PackageID: d.PackageID}); ReasonOf(err) != ReasonInvalid ||
		err.Error() != `revokeGrant: clock-1 has no grant for package "pkg-1"` || len(g.Packages) != 0 {
		t.Fatalf("second RevokeGrant = %+v, %v", g, err)
	}
	// The live run keeps running: nothing was retracted, and its handlers answer.
	if ev := e.takeEvents(); len(ev) != 0 {
		t.Fatalf("revoke emitted %v", ev)
	}
	if p := e.plugin(d.PluginID); p.Current != d.PackageID || p.Latest.Status != StatusRunning || p.Grants.Covers(d.PackageID) {
		t.Fatalf("after revoke: %+v", p)
	}
	if res, err := e.r.Invoke(ctx, d.PluginID, h.PluginRunID, h.Capability, "now", nil); err != nil || string(res) != `{"t":42,"args":null}` {
		t.Fatalf("Invoke after revoke = %s, %v", res, err)
	}
	// The next run asks again, and the live run stays until a page starts the new one.
	out, err := e.r.Run(ctx, RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: ModeRun})
	if err != nil || out.Status != "awaiting-approval" || !e.lastRequest().RequiresApproval {
		t.Fatalf("Run after revoke = %+v, %v", out, err)
	}
	if s, _ := e.r.InspectPlugin(ctx, d.PluginID); s.ActiveRun == nil || s.ActiveRun.PluginRunID != h.PluginRunID {
		t.Fatalf("the live run went while the new request waits: %+v", s)
	}
	if _, err := e.r.Invoke(ctx, d.PluginID, h.PluginRunID, h.Capability, "now", nil); err != nil {
		t.Fatalf("Invoke while the new request waits = %v", err)
	}
}

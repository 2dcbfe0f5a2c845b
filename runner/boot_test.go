package runner

import (
	"context"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"reflect"
	"strings"
	"testing"
)

const idleHost = "return (ctx) => {}"

// bootStore is a Store as a previous process left it: clock-1 (host-only) was running,
// web-2 (with a client half, granted) was running, page-3 (with a client half, not
// granted) was running, and wait-4 had a run request pending.
func bootStore(t *testing.T) Store {
	t.Helper()
	s := NewMemoryStore()
	ctx := context.Background()
	for _, d := range []Definition{
		{Session: "s1", Prefix: "clock", Name: "Clock", Purpose: "p", Host: idleHost},
		{Session: "s1", Prefix: "web", Name: "Web", Purpose: "p", Host: idleHost, Client: "return {}"},
		{Session: "s2", Prefix: "page", Name: "Page", Purpose: "p", Client: "return {}"},
		{Session: "s1", Prefix: "wait", Name: "Wait", Purpose: "p", Client: "return {}"},
	} {
		if _, _, err := s.Define(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	running := func(run, pkg string, host, client dynamic.HalfStatus) Change {
		return Change{Current: ptr(pkg), Running: ptr(true), Attempt: &dynamic.Attempt{PluginRunID: run, PackageID: pkg, Mode: dynamic.ModeRun, Status: dynamic.RunRunning,
			Host: dynamic.Half{Status: host, WaitingFor: []string{}}, Client: dynamic.Half{Status: client, WaitingFor: []string{}}}}
	}
	changes := map[string]Change{
		"clock-1": running("run-1", "pkg-1", dynamic.HalfRunning, dynamic.HalfAbsent),
		"web-2":   running("run-2", "pkg-2", dynamic.HalfRunning, dynamic.HalfRunning),
		"page-3":  running("run-3", "pkg-3", dynamic.HalfAbsent, dynamic.HalfRunning),
		"wait-4": {Next: ptr("pkg-4"), Attempt: &dynamic.Attempt{PluginRunID: "run-4", PackageID: "pkg-4", Mode: dynamic.ModeRun, Status: dynamic.RunAwaitingApproval,
			ApprovalRequestID: "approval-1", RequiresApproval: true, Host: dynamic.Half{Status: dynamic.HalfAbsent, WaitingFor: []string{}}, Client: dynamic.Half{Status: dynamic.HalfPending, WaitingFor: []string{}}}},
	}
	for id, c := range changes {
		if _, err := s.Update(ctx, id, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Update(ctx, "web-2", Change{Grant: "pkg-2"}); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		_, _ = s.Mint(ctx, CounterRun)
	}
	_, _ = s.Mint(ctx, CounterApproval)
	return s
}

func texts(ms []ModelMessageEvent) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.Kind)+" "+m.PluginID+": "+m.Text)
	}
	return out
}

func TestBootWithoutRestart(t *testing.T) {
	e := newEnv(t, &Options{Store: bootStore(t)})
	for _, id := range []string{"clock-1", "web-2", "page-3"} {
		p := e.plugin(id)
		if p.Running || p.Latest.Status != dynamic.RunStopped || e.r.activeRun(id) != nil {
			t.Errorf("%s after boot: running %v, status %s, live %v; want it stopped", id, p.Running, p.Latest.Status, e.r.activeRun(id))
		}
		if _, ok := e.r.BootRestart(id); ok {
			t.Errorf("%s restarted without RestartAtBoot", id)
		}
	}
	w := e.plugin("wait-4").Latest
	if w.Status != dynamic.RunCancelled || w.Client.Status != dynamic.HalfStopped || w.Error == nil || w.ApprovalRequestID != "" ||
		w.Error.Message != "the runtime restarted before this run finished starting (pending requests and starts do not survive a restart)" {
		t.Errorf("wait-4's lost request after boot: %+v %+v", w, w.Error)
	}
	want := []string{
		`inject clock-1: clock-1 was running pkg-1 when the runtime stopped and is stopped now; its Packages and grants were kept. Start it again with cordis_run {pluginId:"clock-1", packageId:"pkg-1", mode:"run"}.`,
		`inject web-2: web-2 was running pkg-2 when the runtime stopped and is stopped now; its Packages and grants were kept. Start it again with cordis_run {pluginId:"web-2", packageId:"pkg-2", mode:"run"}.`,
		`steer wait-4: The runtime restarted while the run of wait-4/pkg-4 (run-4) was awaiting-approval; that start was lost and nothing of it runs. currentPackageId is none. Call cordis_run again to start it.`,
	}
	if got := texts(e.r.Messages("s1")); !reflect.DeepEqual(got, want) {
		t.Fatalf("messages kept for s1:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Kept until the session connects, then delivered.
	disconnect := e.r.Connect("s1")
	defer disconnect()
	if got := texts(e.takeMessages()); !reflect.DeepEqual(got, want) {
		t.Fatalf("delivered on Connect:\n%s", strings.Join(got, "\n"))
	}
	if got := e.r.Messages("s2"); len(got) != 1 || got[0].PluginID != "page-3" {
		t.Fatalf("messages kept for s2: %+v", got)
	}
}

func TestBootRestart(t *testing.T) {
	e := newEnv(t, &Options{Store: bootStore(t), RestartAtBoot: true})
	for id, want := range map[string]dynamic.BootRestart{
		"clock-1": {PackageID: "pkg-1", PluginRunID: "run-5", Status: "running"},
		"web-2":   {PackageID: "pkg-2", PluginRunID: "run-6", Status: "starting"},
		"page-3":  {PackageID: "pkg-3", PluginRunID: "run-7", Status: "awaiting-approval"},
	} {
		if got, ok := e.r.BootRestart(id); !ok || got != want {
			t.Errorf("BootRestart(%s) = %+v, %v; want %+v", id, got, ok, want)
		}
	}
	if _, ok := e.r.BootRestart("wait-4"); ok {
		t.Error("wait-4 (a lost request, not a run) was restarted")
	}
	if a := e.r.activeRun("clock-1"); a == nil || a.PluginRunID != "run-5" || !e.plugin("clock-1").Running {
		t.Fatalf("clock-1 after a restart at boot: live %+v, stored %+v", a, e.plugin("clock-1"))
	}
	wantEvents := []string{"package clock-1/pkg-1 run-5", "request-run approval-2 web-2/pkg-2 approval=false", "request-run approval-3 page-3/pkg-3 approval=true"}
	if got := e.takeEvents(); !reflect.DeepEqual(got, wantEvents) {
		t.Fatalf("events at boot: %v, want %v", got, wantEvents)
	}
	want := []string{
		`inject clock-1: clock-1 was running pkg-1 when the runtime stopped and was restarted at boot as run-5 (status running).`,
		`inject web-2: web-2 was running pkg-2 when the runtime stopped; its restart at boot is run request approval-2 (run-6, status starting): it runs once a page of the Cordis panel starts it.`,
		`steer wait-4: The runtime restarted while the run of wait-4/pkg-4 (run-4) was awaiting-approval; that start was lost and nothing of it runs. currentPackageId is none. Call cordis_run again to start it.`,
	}
	if got := texts(e.r.Messages("s1")); !reflect.DeepEqual(got, want) {
		t.Fatalf("messages kept for s1:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := texts(e.r.Messages("s2")); len(got) != 1 || got[0] != `inject page-3: page-3 was running pkg-3 when the runtime stopped; its restart at boot is run request approval-3 (run-7, status awaiting-approval): it runs once a page of the Cordis panel starts it after the user approves it again (no grant covers it).` {
		t.Fatalf("messages kept for s2: %q", got)
	}
}

// TestRunningFlag: a commit sets Plugin.Running, a stop clears it, a shutdown keeps it.
func TestRunningFlag(t *testing.T) {
	s := NewMemoryStore()
	e := newEnv(t, &Options{Store: s})
	d := e.define(newPlugin("clock"), idleHost, "")
	run := func() {
		t.Helper()
		if _, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if !e.plugin("clock-1").Running {
		t.Fatal("Running is false after a run committed")
	}
	if _, err := e.r.Stop(as("s1"), dynamic.StopInput{PluginID: "clock-1"}); err != nil {
		t.Fatal(err)
	}
	if e.plugin("clock-1").Running {
		t.Fatal("Running is true after a stop")
	}
	run()
	run() // a restart of the same Package retracts the old run and commits a new one
	if err := e.r.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Plugin(context.Background(), "clock-1"); !p.Running {
		t.Fatal("a shutdown cleared Running: the next boot would not know the Plugin was running")
	}
}

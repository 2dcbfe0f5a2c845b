package runner

import (
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"testing"
)

// A host half runs in its Plugin's session's engine (SandboxHost passes HostSpec.Session
// to the sandbox): the sandbox holds one engine per session with a live run, and a
// session's engine goes when its last run stops.
func TestHostHalvesRunInTheirSessionsEngine(t *testing.T) {
	e := newEnv(t, nil)
	start := func(session, prefix string) string {
		t.Helper()
		d, err := e.r.Define(as(session), dynamic.DefineInput{Plugin: newPlugin(prefix), Name: prefix, Purpose: "Engines.", Code: dynamic.Code{Host: ptr(`return { name: '` + prefix + `', apply(ctx) {} }`)}})
		if err != nil {
			t.Fatal(err)
		}
		if out, err := e.r.Run(as(session), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil || out.Status != "running" {
			t.Fatalf("%s runs %s: %+v %v", session, d.PluginID, out, err)
		}
		return d.PluginID
	}
	engines := func() int { return e.host.Loop().Engines() }
	a1, a2, b := start("alice", "one"), start("alice", "two"), start("bob", "three")
	if got := engines(); got != 2 {
		t.Errorf("Engines() = %d with runs of two sessions, want 2", got)
	}
	for _, s := range []struct {
		session, id string
		want        int
	}{{"alice", a1, 2}, {"alice", a2, 1}, {"bob", b, 0}} {
		if _, err := e.r.Stop(as(s.session), dynamic.StopInput{PluginID: s.id}); err != nil {
			t.Fatalf("%s stops %s: %v", s.session, s.id, err)
		}
		if got := engines(); got != s.want {
			t.Errorf("Engines() = %d after %s stopped %s, want %d", got, s.session, s.id, s.want)
		}
	}
}

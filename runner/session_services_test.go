package runner

import (
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"testing"
)

// A host half's services are its session's, except the keys Options.SharedServices
// declares: a half of another session loads on a shared one and waits for a private one.
func TestSharedServicesCrossSessions(t *testing.T) {
	e := newEnv(t, &Options{SharedServices: []string{"weather"}})
	run := func(session, prefix, host string) dynamic.RunOutput {
		t.Helper()
		d, err := e.r.Define(as(session), dynamic.DefineInput{Plugin: newPlugin(prefix), Name: prefix, Purpose: "Sessions.", Code: dynamic.Code{Host: ptr(host)}})
		if err != nil {
			t.Fatal(err)
		}
		out, err := e.r.Run(as(session), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	run("alice", "sky", `return { name: 'provider', apply(ctx) {
		ctx.provide('weather', { now() { return 'sunny' } })
		ctx.provide('diary', { read() { return 'alice private' } })
	} }`)
	if out := run("bob", "cast", `return { name: 'forecast', inject: ['weather'], apply(ctx) {} }`); len(out.Host.WaitingFor) != 0 || out.Status != "running" {
		t.Errorf("bob's half injecting the shared weather: %+v; want it running", out)
	}
	if out := run("bob", "snoop", `return { name: 'snoop', inject: ['diary'], apply(ctx) {} }`); len(out.Host.WaitingFor) != 1 || out.Host.WaitingFor[0] != "diary" {
		t.Errorf("bob's half injecting alice's private diary: %+v; want it waiting for diary", out)
	}
}

package runner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/google/go-cmp/cmp"
)

// Go code of another session learns nothing through Invoke: a Plugin of s1 reads to s2
// exactly as a Plugin that does not exist — whether it runs, whatever run id s2 names —
// and its handler never runs. Without a session the runtime's own code reaches it.
func TestInvokeScopedToTheSessionOnCtx(t *testing.T) {
	e := newEnv(t, nil)
	d := e.define(newPlugin("clock"), clockHost, "")
	if _, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	missing, err := e.r.Invoke(as("s2"), &InvokeParams{PluginID: "nope-9", Method: "now"})
	if missing != nil || !hasCode(err, InvokePluginNotRunning) {
		t.Fatalf("Invoke of a missing Plugin = %s, %v; want plugin-not-running", missing, err)
	}
	want := err.Error()
	for _, p := range []InvokeParams{
		{PluginID: d.PluginID, Method: "now"},
		{PluginID: d.PluginID, PluginRunID: "run-1", Method: "now"},
		{PluginID: d.PluginID, PluginRunID: "run-7", Method: "now"}, // a stale id must not answer stale-run
		{PluginID: d.PluginID, Method: "missing"},
		{PluginID: d.PluginID, Method: "now", Args: make(chan int)}, // nor invalid-args
	} {
		out, err := e.r.Invoke(as("s2"), &p)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if out != nil || !hasCode(err, InvokePluginNotRunning) || got != strings.Replace(want, "nope-9", d.PluginID, 1) {
			t.Errorf("s2 Invoke(%+v) = %s, %v; want what a missing Plugin answers", p, out, err)
		}
	}
	for name, ctx := range map[string]context.Context{"its session": as("s1"), "the runtime": context.Background()} {
		out, err := e.r.Invoke(ctx, &InvokeParams{PluginID: d.PluginID, Method: "now", Args: map[string]int{"x": 1}})
		if err != nil || string(out) != `{"t":42,"args":{"x":1}}` {
			t.Errorf("Invoke as %s = %s, %v", name, out, err)
		}
	}
	if _, err := e.r.Invoke(as("s1"), &InvokeParams{PluginID: d.PluginID, PluginRunID: "run-7", Method: "now"}); !hasCode(err, InvokeStaleRun) {
		t.Errorf("Invoke of a named run that is not the live one = %v, want stale-run", err)
	}
	if _, err := e.r.Invoke(as("s1"), &InvokeParams{PluginID: d.PluginID, Method: "now", Args: make(chan int)}); !hasCode(err, InvokeBadArgs) {
		t.Errorf("Invoke with arguments JSON cannot encode = %v, want invalid-args", err)
	}
}

// A page proves its capability: leaving it out, or bringing another run's, never takes
// the trusted path Go code has, and the checks keep their order (a stale run before the
// capability).
func TestInvokeFromPanelNeedsTheCapability(t *testing.T) {
	e := newEnv(t, nil)
	d := e.define(newPlugin("clock"), clockHost, "")
	if _, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	runID, capa, err := e.r.RunCapability(as("s1"), d.PluginID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args page.InvokeArgs
		want InvokeCode
	}{
		{page.InvokeArgs{PluginID: d.PluginID, PluginRunID: runID, Method: "now"}, InvokeForbidden},
		{page.InvokeArgs{PluginID: d.PluginID, PluginRunID: runID, Capability: capa + "x", Method: "now"}, InvokeForbidden},
		{page.InvokeArgs{PluginID: d.PluginID, Capability: capa, Method: "now"}, InvokeStaleRun},
		{page.InvokeArgs{PluginID: d.PluginID, PluginRunID: "run-7", Method: "now"}, InvokeStaleRun},
		{page.InvokeArgs{PluginID: "nope-9", PluginRunID: runID, Capability: capa, Method: "now"}, InvokePluginNotRunning},
	} {
		for _, ctx := range []context.Context{context.Background(), as("s1")} {
			if out, err := e.r.InvokeFromPanel(ctx, tt.args); out != nil || !hasCode(err, tt.want) {
				t.Errorf("InvokeFromPanel(%+v) = %s, %v; want %s", tt.args, out, err, tt.want)
			}
		}
	}
	out, err := e.r.InvokeFromPanel(context.Background(), page.InvokeArgs{PluginID: d.PluginID, PluginRunID: runID, Capability: capa, Method: "now", Args: json.RawMessage(`[1]`)})
	if diff := cmp.Diff(`{"t":42,"args":[1]}`, string(out)); err != nil || diff != "" {
		t.Errorf("InvokeFromPanel with the capability: %v (-want +got):\n%s", err, diff)
	}
}

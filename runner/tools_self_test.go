package runner

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The whole-session listing is byte for byte what the per-Plugin path gives: each
// Plugin's summary (cordis_inspect_self {pluginId} without its Packages) and the session's kept messages, encoded
// with encoding/json. The shapes cover every pointer the listing sets: a live run, a
// failed, a rejected and a cancelled attempt, one awaiting approval, kept messages, and
// Plugins restored and restarted at boot.
func TestInspectSelfListingMatchesSummaries(t *testing.T) {
	t.Run("runs", func(t *testing.T) {
		e := newEnv(t, nil)
		inv := e.invoker()
		var d dynamic.DefineOutput
		mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"clock"}`, `"Clock"`, `"Shows the time."`, `{"host":"return 42"}`), &d)
		if _, got := call(t, inv, "s1", "cordis_run", `{"pluginId":"clock-1","packageId":"pkg-1","mode":"run"}`); got == "" {
			t.Fatal("a host half returning 42 ran")
		}
		mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"live"}`, `"Live"`, `"Runs."`, `{"host":`+jsonString(hostOnly)+`}`), &d)
		mustCall(t, inv, "s1", "cordis_run", `{"pluginId":"live-2","packageId":"pkg-2","mode":"run"}`, &dynamic.RunOutput{})
		mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"panel"}`, `"Panel"`, `"A panel."`, `{"client":"return () => {}"}`), &d)
		mustCall(t, inv, "s1", "cordis_run", `{"pluginId":"panel-3","packageId":"pkg-3","mode":"run"}`, &dynamic.RunOutput{})
		if acc := (testPage{e}).answer(e.lastRequest(), page.Resolution{Reason: ReasonRejected}); !acc.Accepted {
			t.Fatal(acc.Message)
		}
		mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"note"}`, `"Note"`, `"A note."`, `{"client":"return () => {}"}`), &d)
		mustCall(t, inv, "s1", "cordis_run", `{"pluginId":"note-4","packageId":"pkg-4","mode":"run"}`, &dynamic.RunOutput{})
		mustCall(t, inv, "s1", "cordis_stop", `{"pluginId":"note-4"}`, &dynamic.StopOutput{})
		mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"wait"}`, `"Wait"`, `"Waits."`, `{"client":"return () => {}"}`), &d)
		mustCall(t, inv, "s1", "cordis_run", `{"pluginId":"wait-5","packageId":"pkg-5","mode":"run"}`, &dynamic.RunOutput{})
		mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"idle"}`, `"Idle"`, `"Never runs."`, `{"host":"return 42"}`), &d)
		checkListing(t, e, "s1", 6)
	})
	t.Run("boot", func(t *testing.T) {
		e := newEnv(t, &Options{Store: bootStore(t), RestartAtBoot: true})
		checkListing(t, e, "s1", 3)
	})
}

// checkListing compares the JSON of cordis_inspect_self {} as session with the listing
// built Plugin by Plugin, and checks it lists n Plugins.
func checkListing(t *testing.T, e *env, session string, n int) {
	t.Helper()
	got, errText := call(t, e.invoker(), session, "cordis_inspect_self", `{}`)
	if errText != "" {
		t.Fatal(errText)
	}
	ss, err := listPlugins(e.r, kit.WithSession(context.Background(), session))
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != n {
		t.Fatalf("%d Plugins listed, want %d", len(ss), n)
	}
	plugins := []dynamic.PluginSummary{}
	for _, s := range ss {
		one, err := e.inspectPlugin(kit.WithSession(context.Background(), session), s.PluginID)
		if err != nil {
			t.Fatal(err)
		}
		one.Packages = nil // the listing leaves them out
		plugins = append(plugins, one)
	}
	ref := dynamic.InspectSelfOutput{Mode: dynamic.SelfPlugins, Plugins: &plugins}
	for _, m := range e.r.Messages(session) {
		ref.Messages = append(ref.Messages, dynamic.Message{Kind: m.Kind, PluginID: m.PluginID, Text: m.Text})
	}
	want, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("cordis_inspect_self {} as %s:\n%s\nwant, Plugin by Plugin:\n%s", session, got, want)
	}
}

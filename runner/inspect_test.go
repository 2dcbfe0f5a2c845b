package runner

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/inspect"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The seam to the inspect registry (runner/inspect, whose own tests cover it): the
// runner's two tools reach the registry New built, a provider the runtime registers
// through Inspect is what the model queries, and Options reach the registry.

func TestInspectSeam(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}, InspectQueryTimeout: 50 * time.Millisecond, MaxInspectMethods: 1})
	out, err := e.r.InspectList(context.Background(), dynamic.InspectListInput{}) // needs no session
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range out.Providers {
		ids = append(ids, p.ID)
	}
	if got, want := strings.Join(ids, " "), "Service Event Builtin Tool"; got != want {
		t.Fatalf("providers = %q, want %q", got, want)
	}
	unregister, err := e.r.Inspect().Register(inspect.Provider{
		Manifest: inspect.Manifest{ID: "Slots", Description: "Slots reports the slots.", Methods: []dynamic.InspectMethod{{Name: "list", Description: "Lists them.",
			InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object"}`)}}},
		Query: func(_ context.Context, c inspect.Call) (any, error) {
			return map[string]string{"session": c.Session}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer unregister()
	in := dynamic.InspectQueryInput{Platform: dynamic.InspectHost, Provider: "Slots", Method: "list"}
	res, err := e.r.InspectQuery(as("s1"), in)
	if err != nil || string(res.Data) != `{"session":"s1"}` {
		t.Fatalf("query of a provider registered through Inspect: %s, %v", res.Data, err)
	}
	// Every tool but cordis_inspect_list needs the session.
	if _, err := e.r.InspectQuery(context.Background(), in); ReasonOf(err) != ReasonNoSession || !strings.Contains(err.Error(), "kit.WithSession") {
		t.Fatalf("a query without a session: %v", err)
	}

	// The Options of the registry are the runner's: a page may publish one method, and a
	// client query expires after InspectQueryTimeout.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	page := e.r.Inspect().ConnectPage(ctx)
	m := func(methods ...string) inspect.Manifest {
		m := inspect.Manifest{ID: "Theme", Description: "Theme reports the tokens."}
		for _, name := range methods {
			m.Methods = append(m.Methods, dynamic.InspectMethod{Name: name, Description: "Lists them.",
				InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object"}`)})
		}
		return m
	}
	if err := e.r.Inspect().SyncManifest(inspect.SyncManifestArgs{Page: page, Providers: []inspect.Manifest{m("a", "b")}}); ReasonOf(err) != ReasonInvalid || !strings.Contains(err.Error(), "at most 1 (runner.Options.MaxInspectMethods)") {
		t.Fatalf("two methods past MaxInspectMethods 1: %v", err)
	}
	if err := e.r.Inspect().SyncManifest(inspect.SyncManifestArgs{Page: page, Providers: []inspect.Manifest{m("a")}}); err != nil {
		t.Fatal(err)
	}
	_, err = e.r.InspectQuery(as("s1"), dynamic.InspectQueryInput{Platform: dynamic.InspectClient, Provider: "Theme", Method: "a"})
	if ReasonOf(err) != ReasonExpired || !strings.Contains(err.Error(), "no connected panel page answered within 50ms") {
		t.Fatalf("a client query nobody answers, InspectQueryTimeout 50ms: %v", err)
	}
}

// A different declaration of a core name in Options.Catalog is the merge error, from New.
func TestInspectCatalogClash(t *testing.T) {
	clash := &catalog.Catalog{Services: []catalog.Service{{Key: "timer", Var: catalog.Ref{Pkg: "example.com/rt", Name: "Timer"}}}}
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())
	_, err := New(root, &Options{Host: &fakeHost{}, Catalog: clash})
	if err == nil || !strings.Contains(err.Error(), `service "timer" is declared by both`) {
		t.Fatalf("New with a clashing catalog: %v", err)
	}
}

// The harness entries say what a host half's harness really does: defineTool returns the
// definition without registering it, and registerTool takes only what defineTool returned.
func TestBuiltinsMatchTheHarness(t *testing.T) {
	h, root := newTestHost(t)
	run, err := startHost(t, h, root, `const tool = harness.defineTool({ name: 'x_y', description: 'd', execute: () => 1 });
let refused = ''; try { harness.registerTool({}, { ...tool }) } catch (e) { refused = String(e.message) }
harness.handle('got', () => ({ keys: Object.keys(tool).sort(), refused })); return () => {}`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := run.Invoke(context.Background(), "got", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Keys    []string
		Refused string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Keys, []string{"description", "execute", "name"}) || !strings.Contains(got.Refused, "must be what harness.defineTool returned") {
		t.Fatalf("harness = %s; want defineTool's copy of the definition and registerTool refusing a copy of it", out)
	}
	tools, ok := kit.ToolsService.Get(root)
	if !ok {
		t.Fatal("no tools service")
	}
	if _, ok := tools.Get("x_y"); ok {
		t.Fatal("harness.defineTool registered x_y")
	}
	// What the Builtin provider says of them.
	e := newEnv(t, &Options{Host: &fakeHost{}})
	res, err := e.r.InspectQuery(as("s1"), dynamic.InspectQueryInput{Platform: dynamic.InspectHost, Provider: "Builtin", Method: "listBuiltins"})
	if err != nil {
		t.Fatal(err)
	}
	var listed struct {
		Builtins []struct{ Name, Description string }
	}
	if err := json.Unmarshal(res.Data, &listed); err != nil {
		t.Fatal(err)
	}
	for _, b := range listed.Builtins {
		if b.Name == "harness.defineTool" && !strings.Contains(b.Description, "registers nothing") ||
			b.Name == "harness.registerTool" && !strings.Contains(b.Description, "only what harness.defineTool returned") {
			t.Errorf("%s is described as %q, which is not what the harness does; update runner/inspect/builtins.go", b.Name, b.Description)
		}
	}
}

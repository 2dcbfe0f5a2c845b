package cordiskit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit"
	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/panel"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/pgstore"
	"github.com/jackc/pgx/v5"
)

// TestPanelSeesAnotherProcess: two runtimes on one PostgreSQL store, the second serving
// the panel with a token per person. Alice's Plugin runs in the first; her run and her
// stop there reach her page on the second as cordis/definition-changed "updated" naming
// the Plugin (how long the stop took to arrive is logged). Bob's page on the second
// hears nothing of hers. A NOTIFY forged with plain SQL that claims her Plugin for bob
// (who has one of his own) reaches bob's page as a reload that names no Plugin, and hers
// not at all.
func TestPanelSeesAnotherProcess(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	newRuntime := func(po *panel.Options) *cordiskit.Runtime {
		st, err := pgstore.Open(ctx, dsn, &pgstore.Options{LeaseTTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := cordiskit.New(nil, &cordiskit.Options{Runner: &runner.Options{Store: st}, Panel: po})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := rt.Close(ctx); err != nil {
				t.Error(err)
			}
			st.Close()
		})
		return rt
	}
	first := newRuntime(nil)
	people := map[string]string{"alice-token": "alice", "bob-token": "bob"}
	second := newRuntime(&panel.Options{Sessions: func(token string) (string, bool) { s, ok := people[token]; return s, ok }})
	srv := httptest.NewServer(second.Panel())
	t.Cleanup(srv.Close)
	alice, bob := pageEvents(t, srv.URL, "alice-token"), pageEvents(t, srv.URL, "bob-token")

	call := func(session, tool string, args any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(args)
		out, err := first.Invoker().InvokeSession(ctx, session, tool, raw)
		if err != nil {
			t.Fatalf("%s for %s: %v", tool, session, err)
		}
		var v map[string]any
		_ = json.Unmarshal(out, &v)
		return v
	}
	define := func(session, prefix string) string {
		t.Helper()
		return call(session, "cordis_define", map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": prefix},
			"name": "Clock", "purpose": "Ticks.", "code": map[string]string{"host": "return (ctx) => {}"}})["pluginId"].(string)
	}
	// upTo returns the changes a page was told until the define of sentinel, which its
	// session made after everything before: notices arrive in the order of their commits.
	upTo := func(page chan panel.DefinitionChanged, sentinel string) []panel.DefinitionChanged {
		t.Helper()
		var got []panel.DefinitionChanged
		for {
			select {
			case d := <-page:
				if d.PluginID == sentinel && d.Change == runner.Defined {
					return got
				}
				got = append(got, d)
			case <-time.After(time.Minute):
				t.Fatalf("the page was not told of %s within a minute; it was told %+v", sentinel, got)
			}
		}
	}
	onlyUpdates := func(what, plugin string, got []panel.DefinitionChanged) {
		t.Helper()
		if len(got) == 0 {
			t.Fatalf("alice's page on the second runtime was told nothing of her %s in the first", what)
		}
		for _, d := range got {
			if d != (panel.DefinitionChanged{Session: "alice", PluginID: plugin, Change: runner.Updated}) {
				t.Fatalf("after her %s alice's page was told %+v", what, got)
			}
		}
	}

	clock := define("alice", "clock")
	if got := upTo(alice, define("alice", "note")); len(got) != 1 || got[0].PluginID != clock || got[0].Change != runner.Defined {
		t.Fatalf("after her define alice's page was told %+v", got)
	}
	call("alice", "cordis_run", map[string]string{"pluginId": clock, "packageId": "pkg-1", "mode": "run"})
	onlyUpdates("run", clock, upTo(alice, define("alice", "note")))
	stopped := time.Now()
	call("alice", "cordis_stop", map[string]string{"pluginId": clock})
	var seen time.Duration
	select {
	case d := <-alice:
		seen = time.Since(stopped)
		onlyUpdates("stop", clock, append([]panel.DefinitionChanged{d}, upTo(alice, define("alice", "note"))...))
	case <-time.After(time.Minute):
		t.Fatal("alice's page on the second runtime was not told of her stop in the first within a minute")
	}

	if got := upTo(bob, define("bob", "panel")); len(got) != 0 {
		t.Fatalf("bob's page was told %+v: alice's changes", got)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	forged := fmt.Sprintf(`{"schema":"cordis","origin":"forger","session":"bob","plugin":%q,"package":"pkg-1","change":"defined"}`, clock)
	if _, err := conn.Exec(ctx, "SELECT pg_notify('cordis_store_changes', $1)", forged); err != nil {
		t.Fatal(err)
	}
	want := []panel.DefinitionChanged{{Session: "bob", Change: runner.Updated}}
	if got := upTo(bob, define("bob", "panel")); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("bob's page was told %+v, want only the forged notice's reload %+v: nothing of alice's", got, want)
	}
	if got := upTo(alice, define("alice", "note")); len(got) != 0 {
		t.Fatalf("alice's page was told %+v of the forged notice", got)
	}
	t.Logf("alice's stop in the first runtime reached her page on the second in %v", seen)
}

// pageEvents opens the panel's event stream at base with token, as a page does, and
// returns the cordis/definition-changed events it carries; the stream closes when the
// test ends.
func pageEvents(t *testing.T, base, token string) chan panel.DefinitionChanged {
	t.Helper()
	c, err := panel.NewClient(base, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	es, err := c.Events(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := es.Next(); err != nil || ev.Name != "cordis/connected" {
		t.Fatalf("the stream opened with %+v, %v", ev, err)
	}
	ch := make(chan panel.DefinitionChanged, 64)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			ev, err := es.Next()
			if err != nil {
				return
			}
			if d, ok := ev.Payload.(panel.DefinitionChanged); ok {
				ch <- d
			}
		}
	})
	t.Cleanup(func() { es.Close(); wg.Wait() })
	return ch
}

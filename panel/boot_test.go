package panel

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/runner/sqlstore"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// bootClient is the client half of the Plugins restarted at boot.
const bootClient = `return (ctx) => { ctx.slots.register({ name: 'cordis.card', component: () => React.createElement('p', { id: 'booted' }, 'back after the restart') }); }`

// previousProcess leaves a durable store as a runtime that ended with two Plugins of s1
// running leaves it: web-1 (host and client halves, granted) and gate-2 (a client half
// whose grant was revoked while it ran). It returns the store's path.
func previousProcess(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "definitions.db")
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	root := kit.New(nil)
	r, err := runner.New(root, &runner.Options{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct{ prefix, name, host string }{{"web", "Web", clockHost}, {"gate", "Gate", ""}} {
		in := dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: d.prefix}, Name: d.name, Purpose: "Comes back after a restart."}
		in.Code.Client = ptr(bootClient)
		if d.host != "" {
			in.Code.Host = ptr(d.host)
		}
		out, err := r.Define(as("s1"), in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(as("s1"), dynamic.RunInput{PluginID: out.PluginID, PackageID: out.PackageID, Mode: dynamic.ModeRun}); err != nil {
			t.Fatal(err)
		}
	}
	qs, err := r.PendingRequests(ctx, runner.InventoryScope{Every: true})
	if err != nil || len(qs) != 2 {
		t.Fatalf("the previous process's requests = %+v, %v", qs, err)
	}
	for _, q := range qs {
		h := r.RunHostHalf(ctx, page.RunHostHalfArgs{Session: q.Session, PluginID: q.PluginID, PackageID: q.PackageID, Mode: q.Mode, RequestID: q.RequestID, Ticket: q.Ticket})
		if acc := r.ResolveRequestRun(ctx, page.ResolveArgs{RequestID: q.RequestID, Ticket: q.Ticket, Resolution: page.Resolution{OK: true, PluginRunID: h.PluginRunID, Token: h.Token}}); !h.OK || !acc.Accepted {
			t.Fatalf("starting %s in the previous process: %+v, %s", q.PluginID, h, acc.Message)
		}
	}
	if _, err := r.RevokeGrant(ctx, page.RevokeArgs{Session: "s1", PluginID: "gate-2", PackageID: "pkg-2"}); err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := r.Dispose(dctx); err != nil {
		t.Fatal(err)
	}
	if err := root.Fiber().Dispose(dctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// newBootEnv starts the next process on the store at path with RestartAtBoot: runner.New
// announces web-1's and gate-2's run requests before panel.New can listen. Sessions: the
// token "tok-s1" is s1's, "tok-s2" s2's.
func newBootEnv(t *testing.T, path string) *env {
	t.Helper()
	s, err := sqlstore.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() }) // after the env's own cleanup
	sessions := map[string]string{"tok-s1": "s1", "tok-s2": "s2"}
	e := newEnvWith(t, &Options{Sessions: func(tok string) (string, bool) { s, ok := sessions[tok]; return s, ok }}, serving{tune: func(o *runner.Options) {
		o.Store, o.RestartAtBoot = s, true
	}})
	for id, want := range map[string]dynamic.StartStatus{"web-1": dynamic.StartStarting, "gate-2": dynamic.StartAwaitingApproval} {
		if b, ok := e.r.BootRestart(id); !ok || b.Status != want {
			t.Fatalf("BootRestart(%s) = %+v, %v; want status %s", id, b, ok, want)
		}
	}
	return e
}

// requestOn reads a cordis/request-run from s and decodes it.
func requestOn(t *testing.T, s *sse) RequestRun {
	t.Helper()
	ev := s.next()
	var q RequestRun
	if ev.name != "cordis/request-run" || json.Unmarshal([]byte(ev.data), &q) != nil || q.Ticket == "" {
		t.Fatalf("got %s %s, want a cordis/request-run with its ticket", ev.name, ev.data)
	}
	return q
}

// A page that connects to a panel created after runner.New still gets the run requests
// RestartAtBoot made (announced inside New), with their tickets, and can start them: the
// operator's page and s1's get both, s2's page neither.
func TestBootRequestsReachPages(t *testing.T) {
	e := newBootEnv(t, previousProcess(t))
	for _, tok := range []string{e.h.Token(), "tok-s1"} {
		s := e.streamAs(tok, "")
		if ev := s.next(); ev.name != "cordis/connected" {
			t.Fatalf("first event %s", ev.name)
		}
		web, gate := requestOn(t, s), requestOn(t, s)
		if web.RequestID != "approval-3" || web.PluginID != "web-1" || web.Session != "s1" || web.RequiresApproval || !web.HasClientHalf || web.Name != "Web" ||
			gate.RequestID != "approval-4" || gate.PluginID != "gate-2" || !gate.RequiresApproval {
			t.Fatalf("the boot requests on the stream of %s: %+v, %+v", tok, web, gate)
		}
		s.close()
	}

	// s2's page: its stream goes on with its own events alone (its definition is the fence).
	other := e.streamAs("tok-s2", "")
	if ev := other.next(); ev.name != "cordis/connected" {
		t.Fatalf("s2's first event %s", ev.name)
	}
	if _, err := e.r.Define(as("s2"), dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "mine"}, Name: "Mine", Purpose: "s2's own.", Code: dynamic.Code{Client: ptr(bootClient)}}); err != nil {
		t.Fatal(err)
	}
	if ev := other.next(); ev.name != "cordis/definition-changed" {
		t.Fatalf("s2's page got %s %s before its own definition; another session's boot request must not reach it", ev.name, ev.data)
	}

	// s1's page starts both, over HTTP, with the tickets it was given.
	s := e.streamAs("tok-s1", "")
	s.next()
	for _, q := range []RequestRun{requestOn(t, s), requestOn(t, s)} {
		var h page.HostHalfResult
		if _, en, body := e.callAs("tok-s1", "runHostHalf", page.RunHostHalfArgs{Session: q.Session, PluginID: q.PluginID, PackageID: q.PackageID, Mode: q.Mode,
			RequestID: q.RequestID, Ticket: q.Ticket}); !en.OK || json.Unmarshal(en.Value, &h) != nil || !h.OK || !h.StartedHere {
			t.Fatalf("runHostHalf of %s: %s", q.RequestID, body)
		}
		if _, en, body := e.callAs("tok-s1", "getClientCode", page.ClientCodeArgs{Session: "s1", PluginID: q.PluginID, PluginRunID: h.PluginRunID}); !en.OK {
			t.Fatalf("getClientCode of %s: %s", q.PluginID, body)
		}
		var acc runner.Accepted
		if _, en, body := e.callAs("tok-s1", "resolveRequestRun", page.ResolveArgs{RequestID: q.RequestID, Ticket: q.Ticket,
			Resolution: page.Resolution{OK: true, PluginRunID: h.PluginRunID, Token: h.Token}}); !en.OK || json.Unmarshal(en.Value, &acc) != nil || !acc.Accepted {
			t.Fatalf("resolveRequestRun of %s: %s", q.RequestID, body)
		}
	}
	for _, id := range []string{"web-1", "gate-2"} {
		if p, err := e.r.Store().Plugin(context.Background(), id); err != nil || !p.Running || p.Latest.Status != dynamic.RunRunning {
			t.Fatalf("%s after its page started it: %+v, %v", id, p.Latest, err)
		}
	}
	// Started, they are no longer offered to a page that connects.
	fresh := e.streamAs(e.h.Token(), "")
	fresh.next()
	if _, err := e.r.Define(as("s1"), dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "fence"}, Name: "Fence", Purpose: "p", Code: dynamic.Code{Client: ptr(bootClient)}}); err != nil {
		t.Fatal(err)
	}
	if ev := fresh.next(); ev.name != "cordis/definition-changed" {
		t.Fatalf("a page connecting after both were started got %s %s", ev.name, ev.data)
	}
}

// In a browser: the page of a panel created after the restart starts web-1 on its own
// (its grant holds: no approval) and shows gate-2 waiting for approval, which a person
// gives.
func TestBrowserBootRequests(t *testing.T) {
	ctx := browser(t)
	e := newBootEnv(t, previousProcess(t))
	e.open(ctx)
	rowIs(t, ctx, "web-1", "running")
	frameText(t, ctx, "#booted", "back after the restart")
	rowIs(t, ctx, "gate-2", "awaiting-approval")
	press(t, ctx, "gate-2", "Approve this version")
	rowIs(t, ctx, "gate-2", "running")
	// The row reads running once the client half loaded, and the page's answer
	// (resolveRequestRun) is on its way then: wait for the store to have it.
	for _, id := range []string{"web-1", "gate-2"} {
		var p runner.Plugin
		var err error
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if p, err = e.r.Store().Plugin(context.Background(), id); err == nil && p.Running && p.Latest.Status == dynamic.RunRunning {
				break
			}
		}
		if err != nil || !p.Running || p.Latest.Status != dynamic.RunRunning {
			t.Fatalf("%s after the page started it: %+v, %v", id, p.Latest, err)
		}
	}
}

// A request whose resolution the handler heard before its announcement (a stop can
// resolve a request before RequestRun reaches the listeners) is not offered to fresh
// pages: it would wait there for an answer that can never be given.
func TestRequestResolvedBeforeItsAnnouncement(t *testing.T) {
	e := newEnv(t, nil)
	c := e.r.Fiber().Context()
	runner.RequestRunResolved.Emit(c, runner.RequestRunResolvedEvent{RequestID: "approval-7", PluginID: "late-1", Outcome: runner.OutcomeCancelled})
	runner.RequestRun.Emit(c, runner.RequestRunEvent{RequestID: "approval-7", Ticket: "t", Session: "s1", PluginID: "late-1", PackageID: "pkg-1", Mode: dynamic.ModeRun, HasClientHalf: true})
	s := e.stream("")
	s.next() // cordis/connected
	e.define(clockHost, "")
	if ev := s.next(); ev.name != "cordis/definition-changed" {
		t.Fatalf("a fresh page got %s %s; the request was resolved before it was announced", ev.name, ev.data)
	}
}

package runner_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/runner/sqlstore"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// process is one run of a runtime over a durable store: a kit root, the SQL store and a
// runner.
type process struct {
	root  *kit.Context
	store *sqlstore.Store
	r     *runner.Runner
}

// start opens the store at path and a runner on it, as a runtime does when it starts.
func start(t *testing.T, path string, opts runner.Options) *process {
	t.Helper()
	s, err := sqlstore.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &process{root: kit.New(nil), store: s}
	opts.Store = s
	if p.r, err = runner.New(p.root, &opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.end)
	return p
}

// end shuts the process down as a runtime does when it exits; the store keeps what was
// running. Called again it does nothing.
func (p *process) end() {
	if p.r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.r.Dispose(ctx)
	_ = p.root.Fiber().Dispose(ctx)
	_ = p.store.Close()
	p.r = nil
}

// approve starts request q as a page would, with its ticket, and reports its client half
// loaded.
func (p *process) approve(t *testing.T, q runner.RequestRunEvent) {
	t.Helper()
	ctx := context.Background()
	h := p.r.RunHostHalf(ctx, page.RunHostHalfArgs{Session: q.Session, PluginID: q.PluginID, PackageID: q.PackageID, Mode: q.Mode, RequestID: q.RequestID, Ticket: q.Ticket})
	if !h.OK || !h.StartedHere {
		t.Fatalf("runHostHalf of %s = %+v", q.RequestID, h)
	}
	if _, err := p.r.GetClientCode(ctx, page.ClientCodeArgs{Session: q.Session, PluginID: q.PluginID, PluginRunID: h.PluginRunID}); err != nil {
		t.Fatal(err)
	}
	if acc := p.r.ResolveRequestRun(ctx, page.ResolveArgs{RequestID: q.RequestID, Ticket: q.Ticket, Resolution: page.Resolution{OK: true, PluginRunID: h.PluginRunID, Token: h.Token}}); !acc.Accepted {
		t.Fatalf("resolveRequestRun of %s: %s", q.RequestID, acc.Message)
	}
}

// pending lists the pending requests of scope and fails the test on error.
func (p *process) pending(t *testing.T, scope runner.InventoryScope) []runner.RequestRunEvent {
	t.Helper()
	qs, err := p.r.PendingRequests(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

// run asks, as the model of session, to run Package pkg of Plugin id.
func (p *process) run(t *testing.T, session, id, pkg string) dynamic.RunOutput {
	t.Helper()
	out, err := p.r.Run(kit.WithSession(context.Background(), session), dynamic.RunInput{PluginID: id, PackageID: pkg, Mode: dynamic.ModeRun})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The run requests RestartAtBoot makes inside runner.New are announced before anything
// else could listen, so Go code lists them (with their tickets) and starts them: web-1 of
// s1 (granted: it needs a page, no approval) and page-2 of s2 (its grant was revoked
// while it ran: it needs approval again). Each session's listing holds its own alone.
func TestPendingRequestsAfterARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	before := start(t, path, runner.Options{})
	for _, d := range []struct{ session, prefix, host string }{{"s1", "web", "return (ctx) => {}"}, {"s2", "page", ""}} {
		in := dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: d.prefix}, Name: "Web " + d.session, Purpose: "Shows a page."}
		in.Code.Client = new("return () => {}")
		if d.host != "" {
			in.Code.Host = new(d.host)
		}
		if _, err := before.r.Define(kit.WithSession(context.Background(), d.session), in); err != nil {
			t.Fatal(err)
		}
	}
	before.run(t, "s1", "web-1", "pkg-1")
	before.run(t, "s2", "page-2", "pkg-2")
	for _, q := range before.pending(t, runner.InventoryScope{Every: true}) {
		before.approve(t, q)
	}
	if _, err := before.r.RevokeGrant(context.Background(), page.RevokeArgs{Session: "s2", PluginID: "page-2", PackageID: "pkg-2"}); err != nil {
		t.Fatal(err)
	}
	before.end()

	after := start(t, path, runner.Options{RestartAtBoot: true})
	for id, want := range map[string]dynamic.StartStatus{"web-1": dynamic.StartStarting, "page-2": dynamic.StartAwaitingApproval} {
		if b, ok := after.r.BootRestart(id); !ok || b.Status != want {
			t.Fatalf("BootRestart(%s) = %+v, %v; want status %s", id, b, ok, want)
		}
	}
	all := after.pending(t, runner.InventoryScope{Every: true})
	if len(all) != 2 || all[0].Ticket == "" || all[1].Ticket == "" || all[0].Ticket == all[1].Ticket {
		t.Fatalf("pending after the restart = %+v; want two requests with their own tickets", all)
	}
	web := runner.RequestRunEvent{RequestID: "approval-3", Ticket: all[0].Ticket, Session: "s1", PluginID: "web-1", PackageID: "pkg-1", Mode: dynamic.ModeRun,
		Name: "Web s1", Purpose: "Shows a page.", RequiresApproval: false, HasClientHalf: true}
	page := runner.RequestRunEvent{RequestID: "approval-4", Ticket: all[1].Ticket, Session: "s2", PluginID: "page-2", PackageID: "pkg-2", Mode: dynamic.ModeRun,
		Name: "Web s2", Purpose: "Shows a page.", RequiresApproval: true, HasClientHalf: true}
	if want := []runner.RequestRunEvent{web, page}; !reflect.DeepEqual(all, want) {
		t.Fatalf("pending after the restart:\n%+v\nwant\n%+v", all, want)
	}
	for _, c := range []struct {
		scope runner.InventoryScope
		want  []runner.RequestRunEvent
	}{
		{runner.InventoryScope{Session: "s1"}, []runner.RequestRunEvent{web}},
		{runner.InventoryScope{Session: "s2"}, []runner.RequestRunEvent{page}},
		{runner.InventoryScope{Session: "s3"}, []runner.RequestRunEvent{}},
		{runner.InventoryScope{}, []runner.RequestRunEvent{}},
	} {
		if got := after.pending(t, c.scope); !reflect.DeepEqual(got, c.want) {
			t.Errorf("PendingRequests(%+v) = %+v, want %+v", c.scope, got, c.want)
		}
	}

	after.approve(t, web)
	if got := after.pending(t, runner.InventoryScope{Every: true}); !reflect.DeepEqual(got, []runner.RequestRunEvent{page}) {
		t.Fatalf("pending once web-1 was started = %+v", got)
	}
	after.approve(t, page)
	for _, id := range []string{"web-1", "page-2"} {
		if p, err := after.store.Plugin(context.Background(), id); err != nil || !p.Running || p.Latest.Status != dynamic.RunRunning {
			t.Fatalf("%s after its boot request was started: %+v, %v", id, p.Latest, err)
		}
	}
	if got := after.pending(t, runner.InventoryScope{Every: true}); len(got) != 0 {
		t.Fatalf("pending once both were started = %+v", got)
	}
}

package runner

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

const clientCode = "return () => {}"

// testPage is a test page driving the page verbs as the panel's client runner would.
type testPage struct {
	e *env
}

func (pg testPage) start(q RequestRunEvent, future bool) page.HostHalfResult {
	return pg.e.r.RunHostHalf(context.Background(), page.RunHostHalfArgs{Session: q.Session, PluginID: q.PluginID, PackageID: q.PackageID,
		Mode: q.Mode, RequestID: q.RequestID, ApproveFutureVersions: future, Ticket: q.Ticket})
}

func (pg testPage) answer(q RequestRunEvent, res page.Resolution) Accepted {
	return pg.e.r.ResolveRequestRun(context.Background(), page.ResolveArgs{RequestID: q.RequestID, Ticket: q.Ticket, Resolution: res})
}

// approve is the whole approve-once path: start, fetch the client half, report success.
func (pg testPage) approve(t *testing.T, q RequestRunEvent, future bool) page.HostHalfResult {
	t.Helper()
	h := pg.start(q, future)
	if !h.OK || !h.StartedHere || h.Token == "" {
		t.Fatalf("runHostHalf = %+v", h)
	}
	code, err := pg.e.r.GetClientCode(context.Background(), page.ClientCodeArgs{Session: q.Session, PluginID: q.PluginID, PluginRunID: h.PluginRunID})
	if err != nil || code.Code != clientCode || code.Capability != h.Capability {
		t.Fatalf("getClientCode = %+v, %v", code, err)
	}
	if acc := pg.answer(q, page.Resolution{OK: true, PluginRunID: h.PluginRunID, Token: h.Token}); !acc.Accepted {
		t.Fatalf("answer refused: %s", acc.Message)
	}
	return h
}

func TestApproveOnceAndFuture(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as("s1")
	pg := testPage{e}
	d := e.define(newPlugin("clock"), clockHost, clientCode)
	out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if err != nil || out.Status != "awaiting-approval" || out.ApprovalRequestID != "approval-1" || out.NextPackageID != "pkg-1" || out.PluginRunID != "run-1" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "awaiting-approval" || s.PendingApproval == nil {
		t.Fatalf("inspect = %+v", s)
	}
	q := e.lastRequest()
	if !q.RequiresApproval || q.Ticket == "" {
		t.Fatalf("request event = %+v", q)
	}
	// A page without the ticket cannot start it.
	forged := q
	forged.Ticket = "guess"
	if h := pg.start(forged, false); h.OK || h.Message != "runHostHalf: the ticket does not match request approval-1; pass the ticket of its cordis/request-run event" {
		t.Fatalf("forged start = %+v", h)
	}
	pg.approve(t, q, false)
	p := e.plugin(d.PluginID)
	if p.Current != "pkg-1" || p.Latest.Status != dynamic.RunRunning || !slices.Equal(p.Grants.Packages, []string{"pkg-1"}) || p.Grants.Future {
		t.Fatalf("after approve: %+v", p)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{"request-run approval-1 clock-1/pkg-1 approval=true", "package clock-1/pkg-1 run-1", "resolved approval-1 approved"}) {
		t.Fatalf("events = %v", ev)
	}
	// The model was not connected: the outcome is kept for it.
	if m := e.r.Messages("s1"); len(m) != 1 || m[0].Text != "Cordis run of clock-1/pkg-1 (run-1) completed; currentPackageId is pkg-1. Continue using it." {
		t.Fatalf("kept messages = %+v", m)
	}
	disconnect := e.r.Connect("s1")
	defer disconnect()
	if got := e.takeMessages(); len(got) != 1 || len(e.r.Messages("s1")) != 0 {
		t.Fatalf("Connect delivered %d messages", len(got))
	}

	// A granted Package restarts without approval; a new Package needs it, and approving
	// it for future versions covers the Packages after it.
	if out, _ := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: "pkg-1", Mode: dynamic.ModeRun}); out.Status != "starting" {
		t.Fatalf("granted restart = %+v", out)
	}
	pg.approve(t, e.lastRequest(), false)
	d2 := e.define(existing(d.PluginID), clockHost, clientCode)
	if out, _ := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d2.PackageID, Mode: dynamic.ModeUpdate}); out.Status != "awaiting-approval" {
		t.Fatalf("update to an ungranted Package = %+v", out)
	}
	pg.approve(t, e.lastRequest(), true)
	d3 := e.define(existing(d.PluginID), clockHost, clientCode)
	if out, _ := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d3.PackageID, Mode: dynamic.ModeUpdate}); out.Status != "starting" || e.lastRequest().RequiresApproval {
		t.Fatalf("future-granted update = %+v", out)
	}
	pg.approve(t, e.lastRequest(), false)
	if p := e.plugin(d.PluginID); p.Current != d3.PackageID {
		t.Fatalf("current = %s, want %s", p.Current, d3.PackageID)
	}

	// Revoking the future grant (pkg-3 was granted by it alone): its next run needs
	// approval again.
	g, err := e.r.RevokeGrant(ctx, page.RevokeArgs{Session: "s1", PluginID: d.PluginID, Future: true})
	if err != nil || g.Future || slices.Contains(g.Packages, d3.PackageID) {
		t.Fatalf("RevokeGrant = %+v, %v", g, err)
	}
	if out, _ := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d3.PackageID, Mode: dynamic.ModeRun}); out.Status != "awaiting-approval" {
		t.Fatalf("after revoke = %+v", out)
	}
}

func TestDeclineCancelExpire(t *testing.T) {
	e := newEnv(t, &Options{ApprovalTimeout: 50 * time.Millisecond})
	ctx := as("s1")
	pg := testPage{e}
	d := e.define(newPlugin("clock"), clockHost, clientCode)
	run := func() RequestRunEvent {
		t.Helper()
		if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
			t.Fatal(err)
		}
		return e.lastRequest()
	}
	disconnect := e.r.Connect("s1")
	defer disconnect()

	q := run()
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); ReasonOf(err) != ReasonTransitionInFlight ||
		err.Error() != "clock-1 already has a pending run request approval-1 for pkg-1 (run-1); wait for the outcome (it arrives as a message), or cordis_stop clock-1 to cancel it" {
		t.Fatalf("second Run = %v", err)
	}
	if acc := pg.answer(q, page.Resolution{Reason: ReasonRejected}); !acc.Accepted {
		t.Fatalf("decline refused: %s", acc.Message)
	}
	if acc := pg.answer(q, page.Resolution{Reason: ReasonRejected}); acc.Accepted {
		t.Fatal("a second answer was accepted")
	}
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "rejected" {
		t.Fatalf("state after decline = %s", s.State)
	}

	q = run()
	if _, err := e.r.Stop(ctx, dynamic.StopInput{PluginID: d.PluginID}); err != nil {
		t.Fatal(err)
	}
	if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State != "cancelled" {
		t.Fatalf("state after stop = %s", s.State)
	}
	if acc := pg.answer(q, page.Resolution{Reason: ReasonRejected}); acc.Accepted {
		t.Fatal("an answer to a cancelled request was accepted")
	}

	run()
	deadline := time.Now().Add(3 * time.Second)
	for {
		// The state is stored before the resolution is announced and the model told: wait
		// for all three (a durable store's write, or a loaded machine, is slow enough for the
		// test to see one without the others).
		if s, _ := e.inspectPlugin(ctx, d.PluginID); s.State == "expired" && e.sawEvent("resolved approval-3 expired") && e.messageCount() >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request did not expire")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []string{
		"request-run approval-1 clock-1/pkg-1 approval=true", "resolved approval-1 rejected",
		"request-run approval-2 clock-1/pkg-1 approval=true", "resolved approval-2 cancelled",
		"request-run approval-3 clock-1/pkg-1 approval=true", "resolved approval-3 expired"}) {
		t.Fatalf("events = %v", ev)
	}
	msgs := e.takeMessages()
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Text)
	}
	if len(msgs) != 2 || !strings.HasPrefix(texts[0], "The user rejected the Cordis run of clock-1/pkg-1 (run-1). Do not request it again unless the user asks") ||
		!strings.HasPrefix(texts[1], "Cordis run request approval-3 for clock-1/pkg-1 (run-3) expired: nobody started it within 50ms: no page of the Cordis panel is open, or the user did not answer. Nothing was started") {
		t.Fatalf("messages = %q", texts)
	}
}

// docs/dynamic-plugins.md, "Races: the first answer wins": two pages answer one request.
// The second attaches (never a spurious "already starting"), gets no token, and its
// failure cannot win over the starter's success.
func TestTwoPagesRace(t *testing.T) {
	for i := range 20 {
		e := newEnv(t, nil)
		ctx := as("s1")
		d := e.define(newPlugin("clock"), clockHost, clientCode)
		if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
			t.Fatal(err)
		}
		q := e.lastRequest()
		var wg sync.WaitGroup
		res := make([]page.HostHalfResult, 2)
		for j := range res {
			wg.Go(func() { res[j] = testPage{e}.start(q, false) })
		}
		wg.Wait()
		starter, other := res[0], res[1]
		if !starter.StartedHere {
			starter, other = other, starter
		}
		if !starter.OK || !other.OK || !starter.StartedHere || other.StartedHere || other.Token != "" || starter.PluginRunID != other.PluginRunID || other.Capability != starter.Capability {
			t.Fatalf("round %d: answers %+v / %+v", i, starter, other)
		}
		if acc := (testPage{e}).answer(q, page.Resolution{Reason: ReasonClientHalfFailed, PluginRunID: other.PluginRunID, Token: other.Token, Message: "load failed"}); acc.Accepted {
			t.Fatalf("round %d: the attached page's failure was accepted", i)
		}
		if acc := (testPage{e}).answer(q, page.Resolution{OK: true, PluginRunID: starter.PluginRunID, Token: starter.Token}); !acc.Accepted {
			t.Fatalf("round %d: the starter's success was refused: %s", i, acc.Message)
		}
		if p := e.plugin(d.PluginID); p.Current != "pkg-1" || p.Latest.Status != dynamic.RunRunning {
			t.Fatalf("round %d: %+v", i, p.Latest)
		}
	}
}

// The page that started a run owns it: its failure retracts the run.
func TestStarterFailureRetracts(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as("s1")
	d := e.define(newPlugin("clock"), clockHost, clientCode)
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	q := e.lastRequest()
	h := testPage{e}.start(q, false)
	if acc := (testPage{e}).answer(q, page.Resolution{Reason: ReasonClientHalfFailed, PluginRunID: h.PluginRunID, Token: h.Token, Message: "evaluate: boom"}); !acc.Accepted {
		t.Fatal(acc.Message)
	}
	p := e.plugin(d.PluginID)
	if p.Current != "" || p.Next != "pkg-1" || p.Latest.Status != dynamic.RunFailed || p.Latest.Error.Phase != dynamic.PhaseClientApply || p.Latest.Error.Message != "evaluate: boom" {
		t.Fatalf("after failure: %+v %+v", p, p.Latest)
	}
	if ev := e.takeEvents(); !slices.Equal(ev[len(ev)-2:], []string{"retract clock-1/pkg-1 run-1", "resolved approval-1 failed"}) {
		t.Fatalf("events = %v", ev)
	}
	if n := len(e.r.group.Children()); n != 0 {
		t.Fatalf("%d host halves left", n)
	}
}

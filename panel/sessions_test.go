package panel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// Two people, each holding their own session's token, and the operator: the tests below
// are what one of them tries against the other over the real wire.
const (
	aliceToken = "alice-token"
	bobToken   = "bob-token"
)

// newPeopleEnv is an env whose Options.Sessions maps aliceToken to session "alice" and
// bobToken to "bob"; the operator's token stays "test-token".
func newPeopleEnv(t testing.TB, opts *Options) *env {
	t.Helper()
	return newPeopleEnvWith(t, opts, serving{})
}

// newPeopleEnvWith is newPeopleEnv served as how says.
func newPeopleEnvWith(t testing.TB, opts *Options, how serving) *env {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	opts.Sessions = func(token string) (string, bool) {
		switch token {
		case aliceToken:
			return "alice", true
		case bobToken:
			return "bob", true
		case "empty-session-token":
			return "", true // a broken mapping: must not read as the operator's
		}
		return "", false
	}
	return newEnvWith(t, opts, how)
}

// callToolAs calls tool as the model of session, through the tools registry (so the
// activity list records it).
func (e *env) callToolAs(session, tool string, args any) json.RawMessage {
	e.t.Helper()
	in, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	out, err := e.tools().Call(as(session), tool, in)
	if err != nil {
		e.t.Fatalf("%s as %s: %v", tool, session, err)
	}
	return out
}

// defineIn defines, as session's model, a new Plugin with prefix and the halves given.
func (e *env) defineIn(session, prefix, host, client string) dynamic.DefineOutput {
	e.t.Helper()
	code := map[string]string{}
	if host != "" {
		code["host"] = host
	}
	if client != "" {
		code["client"] = client
	}
	var d dynamic.DefineOutput
	out := e.callToolAs(session, "cordis_define", map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": prefix},
		"name": "Clock of " + session, "purpose": "Shows " + session + " the time.", "code": code})
	if err := json.Unmarshal(out, &d); err != nil || d.PluginID == "" {
		e.t.Fatalf("cordis_define as %s answered %s: %v", session, out, err)
	}
	return d
}

// runIn runs d as session's model.
func (e *env) runIn(session string, d dynamic.DefineOutput) dynamic.RunOutput {
	e.t.Helper()
	var r dynamic.RunOutput
	out := e.callToolAs(session, "cordis_run", map[string]any{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"})
	if err := json.Unmarshal(out, &r); err != nil {
		e.t.Fatalf("cordis_run as %s answered %s: %v", session, out, err)
	}
	return r
}

// holdings is what one person's session holds in the fixture: a client-bearing Plugin
// waiting for approval (its request and ticket) and a host-only Plugin that runs (its
// run and capability).
type holdings struct {
	session    string
	asking     dynamic.DefineOutput
	request    string
	ticket     string
	running    dynamic.DefineOutput
	runID      string
	capability string
}

// hold gives session its holdings; op is the operator's stream, where the ticket is read.
func (e *env) hold(session string, op *sse) holdings {
	e.t.Helper()
	h := holdings{session: session}
	h.asking = e.defineIn(session, session[:3]+"ask", clockHost, clientCode)
	out := e.runIn(session, h.asking)
	if out.Status != "awaiting-approval" {
		e.t.Fatalf("run of %s = %+v, want awaiting-approval", h.asking.PluginID, out)
	}
	h.request = out.ApprovalRequestID
	for h.ticket == "" {
		ev := op.next()
		var q RequestRun
		if ev.name == "cordis/request-run" && json.Unmarshal([]byte(ev.data), &q) == nil && q.RequestID == h.request {
			h.ticket = q.Ticket
		}
	}
	h.running = e.defineIn(session, session[:3]+"run", clockHost, "")
	if out := e.runIn(session, h.running); out.Status != "running" {
		e.t.Fatalf("run of %s = %+v, want running", h.running.PluginID, out)
	}
	var err error
	h.runID, h.capability, err = e.r.RunCapability(as(session), h.running.PluginID)
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

// secrets are the strings of h that must never reach another session's page.
func (h holdings) secrets() []string {
	return []string{h.asking.PluginID, h.running.PluginID, h.request, h.ticket, h.capability, `"` + h.session + `"`, "Clock of " + h.session}
}

// mark records an activity card of session with a Seq no model call has: the last event
// of that session, so a test reads a stream up to it and knows it saw everything before.
func (e *env) mark(session string, seq int64) {
	e.h.Record(Call{Tool: "cordis_stop", Session: session, Seq: seq, Args: `{"pluginId":"marker"}`, Result: json.RawMessage(`{}`)})
}

// upTo reads s up to the marker card of seq and returns what came before it.
func (s *sse) upTo(seq int64) []sseEvent {
	s.t.Helper()
	var evs []sseEvent
	for {
		ev := s.next()
		var w Activity
		if ev.name == "cordis/activity" && json.Unmarshal([]byte(ev.data), &w) == nil && w.Seq == seq {
			return evs
		}
		evs = append(evs, ev)
	}
}

// leaks returns the events that mention any of the secrets.
func leaks(evs []sseEvent, secrets []string) []string {
	var out []string
	for _, ev := range evs {
		for _, s := range secrets {
			if strings.Contains(ev.data, s) || strings.Contains(ev.id, s) {
				out = append(out, fmt.Sprintf("%s %s carries %q", ev.name, ev.data, s))
			}
		}
	}
	return out
}

func names(evs []sseEvent) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.name)
	}
	return out
}

const markerSeq = 1 << 40

func TestSessionStreamCarriesOnlyItsSession(t *testing.T) {
	e := newPeopleEnv(t, nil)
	// op is the operator's page the fixture reads tickets from; watch is another one.
	sa, sb, op, watch := e.streamAs(aliceToken, ""), e.streamAs(bobToken, ""), e.stream(""), e.stream("")
	for _, s := range []*sse{sa, sb, op, watch} {
		if c := s.next(); !isConnected(c, false) {
			t.Fatalf("connected = %+v", c)
		}
	}
	alice := e.hold("alice", op)
	bob := e.hold("bob", op)
	// Alice's Plugin is stopped and removed too: the retraction, the cancellation and the
	// removal are hers as well.
	if _, err := e.r.Undefine(as("alice"), dynamic.UndefineInput{PluginID: alice.asking.PluginID}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.Stop(as("alice"), dynamic.StopInput{PluginID: alice.running.PluginID}); err != nil {
		t.Fatal(err)
	}
	e.mark("alice", markerSeq)
	e.mark("bob", markerSeq+1)

	got := map[string][]sseEvent{"alice": sa.upTo(markerSeq), "bob": sb.upTo(markerSeq + 1)}
	opEvents := watch.upTo(markerSeq + 1)
	for who, other := range map[string]holdings{"alice": bob, "bob": alice} {
		evs := got[who]
		if l := leaks(evs, other.secrets()); len(l) > 0 {
			t.Errorf("%s's page received the other session's events:\n%s", who, strings.Join(l, "\n"))
		}
		// Its own events all came, its request with the ticket its page answers with.
		me := map[string]holdings{"alice": alice, "bob": bob}[who]
		if !slices.ContainsFunc(evs, func(ev sseEvent) bool {
			return ev.name == "cordis/request-run" && strings.Contains(ev.data, me.ticket)
		}) || !slices.Contains(names(evs), "cordis/activity") || !slices.Contains(names(evs), "cordis/dynamic-package") {
			t.Errorf("%s's page missed its own events: %v", who, names(evs))
		}
		// Its ids count its own events only: one, two, three… whatever the other did.
		for i, ev := range evs {
			if want := fmt.Sprintf("-s%d", i+1); !strings.HasSuffix(ev.id, want) {
				t.Errorf("%s's event %d (%s) has id %q, want …%s", who, i, ev.name, ev.id, want)
			}
		}
	}
	if l := leaks(got["alice"], []string{alice.ticket}); len(l) == 0 {
		t.Error("alice's page did not get her own ticket")
	}
	if !slices.Contains(names(got["alice"]), "cordis/request-run-resolved") || !slices.Contains(names(got["alice"]), "cordis/dynamic-retract") {
		t.Errorf("alice's page missed the end of her request or run: %v", names(got["alice"]))
	}
	// The operator's page sees both, tickets and all.
	for _, h := range []holdings{alice, bob} {
		for _, s := range []string{h.ticket, h.asking.PluginID, h.running.PluginID} {
			if len(leaks(opEvents, []string{s})) == 0 {
				t.Errorf("the operator's stream lacks %s's %s: %v", h.session, s, names(opEvents))
			}
		}
	}
}

func TestSessionFreshStreamGetsOnlyItsPendingRequests(t *testing.T) {
	e := newPeopleEnv(t, nil)
	op := e.stream("")
	op.next()
	alice := e.hold("alice", op)
	bob := e.hold("bob", op)
	pending := func(token string) []string {
		s := e.streamAs(token, "")
		defer s.close()
		if c := s.next(); !isConnected(c, false) {
			t.Fatalf("connected = %+v", c)
		}
		e.mark("alice", markerSeq)
		e.mark("bob", markerSeq)
		var ids []string
		for _, ev := range s.upTo(markerSeq) {
			var q RequestRun
			if ev.name == "cordis/request-run" && json.Unmarshal([]byte(ev.data), &q) == nil {
				ids = append(ids, q.RequestID+" "+q.Ticket)
			}
		}
		return ids
	}
	if got := pending(bobToken); !slices.Equal(got, []string{bob.request + " " + bob.ticket}) {
		t.Errorf("bob's fresh page is offered %v, want only his request", got)
	}
	if got := pending(aliceToken); !slices.Equal(got, []string{alice.request + " " + alice.ticket}) {
		t.Errorf("alice's fresh page is offered %v, want only her request", got)
	}
	if got := pending(e.h.Token()); len(got) != 2 {
		t.Errorf("the operator's fresh page is offered %v, want both requests", got)
	}
}

func TestSessionReplayDoesNotReplayOtherSessions(t *testing.T) {
	e := newPeopleEnv(t, nil)
	sb, op := e.streamAs(bobToken, ""), e.stream("")
	first, opFirst := sb.next(), op.next()
	sb.close()
	alice := e.hold("alice", op)
	d := e.defineIn("bob", "bobby", clockHost, "")
	e.mark("bob", markerSeq)

	// Bob's page comes back with its last id: it resumes, and gets his define alone.
	s := e.streamAs(bobToken, first.id)
	if c := s.next(); !isConnected(c, true) {
		t.Fatalf("bob's page did not resume from %s: %+v", first.id, c)
	}
	evs := s.upTo(markerSeq)
	if l := leaks(evs, alice.secrets()); len(l) > 0 {
		t.Errorf("bob's resumed stream replayed alice's events:\n%s", strings.Join(l, "\n"))
	}
	if !slices.ContainsFunc(evs, func(ev sseEvent) bool {
		return ev.name == "cordis/definition-changed" && strings.Contains(ev.data, d.PluginID)
	}) {
		t.Errorf("bob's resumed stream = %v, want his define", evs)
	}
	s.close()
	// An id from the operator's stream, or one that counts past bob's events, does not
	// resume a session's stream: it starts fresh, with nothing of alice's.
	for _, last := range []string{opFirst.id, strings.Replace(opFirst.id, "-0", "-s99", 1), strings.Replace(opFirst.id, "-0", "-s0", 1) + "x"} {
		s := e.streamAs(bobToken, last)
		if c := s.next(); !isConnected(c, false) {
			t.Errorf("bob's stream resumed from %q: %+v", last, c)
		}
		e.mark("bob", markerSeq+2)
		if l := leaks(s.upTo(markerSeq+2), alice.secrets()); len(l) > 0 {
			t.Errorf("bob's stream from %q carried alice's events:\n%s", last, strings.Join(l, "\n"))
		}
		s.close()
	}
	// And a session's id does not resume the operator's stream.
	s = e.stream(first.id)
	if c := s.next(); !isConnected(c, false) {
		t.Errorf("the operator's stream resumed from bob's id %s: %+v", first.id, c)
	}
}

func TestSessionInventoryAndActivityAreItsOwn(t *testing.T) {
	e := newPeopleEnv(t, nil)
	op := e.stream("")
	op.next()
	alice := e.hold("alice", op)
	bob := e.hold("bob", op)
	inventory := func(token string) []string {
		var inv runner.InventoryPage
		_, en, _ := e.callAs(token, "inventory", nil)
		if !en.OK || json.Unmarshal(en.Value, &inv) != nil || inv.Truncated || inv.Plugins != len(inv.Rows) {
			t.Fatalf("inventory: %+v", en)
		}
		var ids []string
		for _, r := range inv.Rows {
			ids = append(ids, r.Session+"/"+r.PluginID)
		}
		return ids
	}
	mine := func(h holdings) []string {
		return []string{h.session + "/" + h.asking.PluginID, h.session + "/" + h.running.PluginID}
	}
	if got := inventory(bobToken); !slices.Equal(got, mine(bob)) {
		t.Errorf("bob's inventory = %v, want %v", got, mine(bob))
	}
	if got := inventory(aliceToken); !slices.Equal(got, mine(alice)) {
		t.Errorf("alice's inventory = %v, want %v", got, mine(alice))
	}
	if got := inventory(e.h.Token()); !slices.Equal(got, append(mine(alice), mine(bob)...)) {
		t.Errorf("the operator's inventory = %v, want both sessions'", got)
	}
	activity := func(token string) []string {
		var list []Activity
		_, en, _ := e.callAs(token, "activity", nil)
		if !en.OK || json.Unmarshal(en.Value, &list) != nil {
			t.Fatalf("activity: %+v", en)
		}
		var out []string
		for _, c := range list {
			out = append(out, c.Session)
		}
		return slices.Compact(out)
	}
	if got := activity(bobToken); !slices.Equal(got, []string{"bob"}) {
		t.Errorf("bob's activity list holds the calls of %v", got)
	}
	if got := activity(aliceToken); !slices.Equal(got, []string{"alice"}) {
		t.Errorf("alice's activity list holds the calls of %v", got)
	}
	if got := activity(e.h.Token()); !slices.Equal(got, []string{"bob", "alice"}) {
		t.Errorf("the operator's activity list holds the calls of %v, want bob's then alice's", got)
	}
}

// sameAs fails unless bob's answer about alice's id equals his answer about an id that
// does not exist, once the ids are swapped: the answer says nothing of alice.
func sameAs(t *testing.T, what, theirs, missing, theirID, missingID string) {
	t.Helper()
	if strings.ReplaceAll(theirs, theirID, missingID) != missing {
		t.Errorf("%s: about the other session's %s bob is told\n  %s\nbut about %s, which does not exist,\n  %s", what, theirID, theirs, missingID, missing)
	}
}

func TestSessionCannotAnswerAnotherSessionsRequest(t *testing.T) {
	e := newPeopleEnv(t, nil)
	op := e.stream("")
	op.next()
	alice := e.hold("alice", op)
	e.hold("bob", op)
	const ghost = "approval-999"
	decline := func(request, ticket string) map[string]any {
		return map[string]any{"requestId": request, "ticket": ticket, "resolution": map[string]any{"ok": false, "reason": "rejected"}}
	}
	// Bob holds alice's ticket (say it leaked): declining with it is answered as for a
	// request that does not exist.
	_, en, theirs := e.callAs(bobToken, "resolveRequestRun", decline(alice.request, alice.ticket))
	_, _, missing := e.callAs(bobToken, "resolveRequestRun", decline(ghost, alice.ticket))
	if !en.OK || strings.Contains(theirs, `"accepted":true`) {
		t.Fatalf("bob declined alice's request: %s", theirs)
	}
	sameAs(t, "resolveRequestRun", theirs, missing, alice.request, ghost)
	// Approving it (runHostHalf with the ticket), naming alice or himself as the agent.
	ghostPlugin := alice.asking.PluginID[:strings.LastIndex(alice.asking.PluginID, "-")] + "-999"
	for _, agent := range []string{"alice", "bob"} {
		approve := func(plugin string) string {
			_, _, body := e.callAs(bobToken, "runHostHalf", map[string]any{"session": agent, "pluginId": plugin, "packageId": alice.asking.PackageID,
				"mode": "run", "requestId": alice.request, "ticket": alice.ticket, "approveFutureVersions": true})
			return body
		}
		theirs, missing := approve(alice.asking.PluginID), approve(ghostPlugin)
		if strings.Contains(theirs, `"ok":true,"pluginId"`) || strings.Contains(theirs, "settled") {
			t.Fatalf("bob approved alice's request as %s: %s", agent, theirs)
		}
		sameAs(t, "runHostHalf as "+agent, theirs, missing, alice.asking.PluginID, ghostPlugin)
	}
	// Alice's request still waits for her, and her model heard nothing.
	var inv runner.InventoryPage
	e.value("inventory", nil, &inv)
	rows := inv.Rows
	if i := slices.IndexFunc(rows, func(r runner.InventoryRow) bool { return r.PluginID == alice.asking.PluginID }); i < 0 ||
		rows[i].LatestRun == nil || rows[i].LatestRun.Status != dynamic.RunAwaitingApproval || len(rows[i].Grants.Packages) != 0 {
		t.Fatalf("alice's request after bob's attempts: %+v", rows)
	}
	if m := e.r.Messages("alice"); len(m) != 0 {
		t.Fatalf("alice's model was told: %+v", m)
	}
	// Alice declines it herself; bob's late decline is still told nothing of how it
	// ended, while alice's late one is.
	var acc AcceptedAnswer
	if _, en, _ := e.callAs(aliceToken, "resolveRequestRun", decline(alice.request, alice.ticket)); !en.OK || json.Unmarshal(en.Value, &acc) != nil || !acc.Accepted.Accepted {
		t.Fatalf("alice's own decline: %+v", en)
	}
	_, _, theirs = e.callAs(bobToken, "resolveRequestRun", decline(alice.request, alice.ticket))
	_, _, missing = e.callAs(bobToken, "resolveRequestRun", decline(ghost, ""))
	sameAs(t, "a late resolveRequestRun", theirs, missing, alice.request, ghost)
	if _, _, late := e.callAs(aliceToken, "resolveRequestRun", decline(alice.request, alice.ticket)); !strings.Contains(late, `"settled":"rejected"`) {
		t.Errorf("alice's late decline = %s, want settled rejected", late)
	}
}

func TestSessionCannotReachAnotherSessionsPlugin(t *testing.T) {
	e := newPeopleEnv(t, nil)
	op := e.stream("")
	op.next()
	alice := e.hold("alice", op)
	e.hold("bob", op)
	p := alice.running
	row := func() runner.InventoryRow {
		var inv runner.InventoryPage
		e.value("inventory", nil, &inv)
		rows := inv.Rows
		i := slices.IndexFunc(rows, func(r runner.InventoryRow) bool { return r.PluginID == p.PluginID })
		if i < 0 {
			t.Fatalf("alice's %s is gone: %+v", p.PluginID, rows)
		}
		b, _ := json.Marshal(rows[i])
		var r runner.InventoryRow
		_ = json.Unmarshal(b, &r)
		return r
	}
	before := row()
	ghost := p.PluginID[:strings.LastIndex(p.PluginID, "-")] + "-999"
	for _, agent := range []string{"alice", "bob"} {
		for _, c := range []struct {
			verb string
			args map[string]any
		}{
			{"getClientCode", map[string]any{"pluginRunId": alice.runID}},
			{"runHostHalf", map[string]any{"packageId": p.PackageID, "mode": "run", "requestId": nil}},
			{"settleUserRun", map[string]any{"resolution": map[string]any{"ok": true, "pluginRunId": alice.runID, "token": "x"}}},
			{"revokeGrant", map[string]any{"packageId": p.PackageID, "future": true}},
			{"reportRenderFailure", map[string]any{"pluginRunId": alice.runID, "capability": alice.capability, "failure": map[string]any{"slot": "cordis.card", "message": "bob was here"}}},
			{"reportClientGuardFailure", map[string]any{"pluginRunId": alice.runID, "capability": alice.capability, "failure": map[string]any{"message": "bob was here"}}},
			{"stopFromPanel", map[string]any{}},
			{"undefineFromPanel", map[string]any{}},
			{"invoke", map[string]any{"pluginRunId": alice.runID, "capability": alice.capability, "method": "now", "args": map[string]any{}}},
		} {
			ask := func(plugin string) string {
				args := map[string]any{"pluginId": plugin}
				if c.verb != "invoke" {
					args["session"] = agent
				}
				for k, v := range c.args {
					args[k] = v
				}
				_, _, body := e.callAs(bobToken, c.verb, args)
				return body
			}
			theirs, missing := ask(p.PluginID), ask(ghost)
			sameAs(t, c.verb+" as "+agent, theirs, missing, p.PluginID, ghost)
			if strings.Contains(theirs, `"t":42`) || strings.Contains(theirs, clockHost[:20]) {
				t.Errorf("%s as %s reached alice's Plugin: %s", c.verb, agent, theirs)
			}
		}
	}
	// Nothing of alice's changed: her Plugin runs the same run, with no failure recorded,
	// and her model was told nothing.
	after := row()
	if a, b := fmt.Sprintf("%+v %+v %+v", after.ActiveRun, *after.LatestRun, after.Grants), fmt.Sprintf("%+v %+v %+v", before.ActiveRun, *before.LatestRun, before.Grants); a != b ||
		after.ActiveRun == nil || after.ActiveRun.PluginRunID != alice.runID || after.LatestRun.RenderFailure != nil {
		t.Fatalf("alice's running Plugin changed under bob's attempts:\n  before %s\n  after  %s", b, a)
	}
	if m := e.r.Messages("alice"); len(m) != 0 {
		t.Fatalf("alice's model was told: %+v", m)
	}
	// Alice herself still reaches it.
	var out map[string]any
	_, en, _ := e.callAs(aliceToken, "invoke", map[string]any{"pluginId": p.PluginID, "pluginRunId": alice.runID, "capability": alice.capability, "method": "now"})
	if !en.OK || json.Unmarshal(en.Value, &out) != nil || out["t"] != float64(42) {
		t.Fatalf("alice's own invoke = %+v", en)
	}
}

func TestSessionInspectQueriesStayInTheSession(t *testing.T) {
	e := newPeopleEnv(t, nil)
	sa, sb := e.streamAs(aliceToken, ""), e.streamAs(bobToken, "")
	pa, pb := pageOf(t, sa.next()), pageOf(t, sb.next())
	manifest := []json.RawMessage{json.RawMessage(echoManifest)}
	// Bob cannot publish for alice's page: her page id reads as one that is not connected.
	_, _, theirs := e.callAs(bobToken, "syncInspectManifest", map[string]any{"page": pa, "providers": manifest})
	_, _, missing := e.callAs(bobToken, "syncInspectManifest", map[string]any{"page": "page-nope", "providers": manifest})
	sameAs(t, "syncInspectManifest", theirs, missing, pa, "page-nope")
	if !strings.Contains(theirs, "not-authorised") {
		t.Fatalf("bob published for alice's page: %s", theirs)
	}
	for token, page := range map[string]string{aliceToken: pa, bobToken: pb} {
		if _, en, _ := e.callAs(token, "syncInspectManifest", map[string]any{"page": page, "providers": manifest}); !en.OK {
			t.Fatalf("publishing its own page: %+v", en.Error)
		}
	}
	type result struct {
		data json.RawMessage
		err  error
	}
	got := make(chan result, 1)
	go func() {
		out, err := e.r.InspectQuery(as("alice"), inspectInput("Echo", "echo", `{"say":"hi"}`))
		got <- result{out.Data, err}
	}()
	ev := sa.next()
	var q InspectQuery
	if err := json.Unmarshal([]byte(ev.data), &q); err != nil || ev.name != "cordis/inspect-query" || q.Session != "alice" {
		t.Fatalf("alice's page got %+v, want her query", ev)
	}
	// Bob's page never sees it, and cannot answer it with his page or hers.
	e.mark("bob", markerSeq)
	if evs := sb.upTo(markerSeq); len(leaks(evs, []string{q.RequestID, `"alice"`})) > 0 {
		t.Errorf("bob's page saw alice's query: %v", evs)
	}
	for _, page := range []string{pb, pa} {
		for _, agent := range []string{"alice", "bob"} {
			answer := func(id string) string {
				_, _, body := e.callAs(bobToken, "resolveInspectQuery", map[string]any{"page": page, "session": agent, "requestId": id,
					"resolution": map[string]any{"ok": true, "data": map[string]string{"said": "bob speaking"}}})
				return body
			}
			sameAs(t, "resolveInspectQuery", answer(q.RequestID), answer("inspect-999"), q.RequestID, "inspect-999")
		}
	}
	// Alice's page answers it.
	var acc runner.Accepted
	if _, en, _ := e.callAs(aliceToken, "resolveInspectQuery", map[string]any{"page": pa, "session": "alice", "requestId": q.RequestID,
		"resolution": map[string]any{"ok": true, "data": map[string]string{"said": "hi"}}}); !en.OK || json.Unmarshal(en.Value, &acc) != nil || !acc.Accepted {
		t.Fatalf("alice's own answer: %+v %s", en.Error, en.Value)
	}
	if r := <-got; r.err != nil || string(r.data) != `{"said":"hi"}` {
		t.Fatalf("alice's model got %s, %v", r.data, r.err)
	}
	// With alice's page gone, bob's page (which publishes the same method) does not keep
	// her query waiting until it expires: it is declined for it at once.
	sa.close()
	waitFor(t, "alice's page to leave", func() bool {
		_, en, _ := e.callAs(aliceToken, "syncInspectManifest", map[string]any{"page": pa, "providers": manifest})
		return !en.OK
	})
	_, err := e.r.InspectQuery(as("alice"), inspectInput("Echo", "echo", `{}`))
	if err == nil || !strings.Contains(err.Error(), "open for another session") || strings.Contains(err.Error(), "expired") {
		t.Fatalf("alice's query with only bob's page open = %v", err)
	}
}

func TestSessionTokenLoginKeepsItsToken(t *testing.T) {
	e := newPeopleEnv(t, &Options{Base: "/cordis"})
	res, _ := e.doAs("", "GET", "/cordis/?token="+aliceToken, "", nil)
	if res.StatusCode != 303 || res.Header.Get("Location") != "/cordis/" {
		t.Fatalf("alice's login = %d, Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	cs := res.Cookies()
	if len(cs) != 1 || cs[0].Value != aliceToken || !cs[0].HttpOnly || cs[0].Path != "/cordis/" {
		t.Fatalf("alice's cookie = %+v, want her own token", cs)
	}
	if u := e.h.SessionURL(e.srv.URL+"/", aliceToken); u != e.srv.URL+"/cordis/?token="+aliceToken {
		t.Fatalf("SessionURL = %s", u)
	}
	cookie := map[string]string{"Cookie": CookieName + "=" + aliceToken}
	res, body := e.doAs("", "GET", "/cordis/", "", cookie)
	if res.StatusCode != 200 || !strings.Contains(body, `<meta name="cordis-session" content="alice">`) || !strings.Contains(body, `<meta name="cordis-scope" content="session">`) {
		t.Fatalf("alice's page = %d %s", res.StatusCode, body)
	}
	res, body = e.do("GET", "/cordis/", "", true, nil)
	if res.StatusCode != 200 || !strings.Contains(body, `<meta name="cordis-scope" content="all">`) {
		t.Fatalf("the operator's page = %d %s", res.StatusCode, body)
	}
	// The cookie grants alice's session, never the operator's view.
	op := e.stream("")
	op.next()
	e.hold("bob", op)
	res, body = e.doAs("", "POST", "/cordis/rpc/inventory", "{}", cookie)
	if res.StatusCode != 200 || body != `{"ok":true,"value":{"rows":[],"plugins":0,"omitted":0,"truncated":false}}`+"\n" {
		t.Fatalf("alice's inventory through her cookie = %d %s", res.StatusCode, body)
	}
	// Tokens that are not a session's, a mapping to no session, and a token a cookie
	// cannot carry.
	for _, c := range []struct {
		token  string
		status int
		says   string
	}{
		{"mallory-token", 401, "not one of this panel's"},
		{"empty-session-token", 401, "not one of this panel's"},
	} {
		res, body := e.doAs("", "GET", "/cordis/?token="+c.token, "", nil)
		if res.StatusCode != c.status || !strings.Contains(body, c.says) {
			t.Errorf("login with %s = %d %s", c.token, res.StatusCode, body)
		}
		if res, _ := e.doAs(c.token, "POST", "/cordis/rpc/inventory", "{}", nil); res.StatusCode != 401 {
			t.Errorf("bearer %s = %d", c.token, res.StatusCode)
		}
	}
	// Without Options.Sessions a session's token is nobody's.
	plain := newEnv(t, nil)
	if res, _ := plain.doAs(aliceToken, "POST", "/rpc/inventory", "{}", nil); res.StatusCode != 401 {
		t.Errorf("a session token without Options.Sessions = %d", res.StatusCode)
	}
	odd := newEnv(t, &Options{Sessions: func(t string) (string, bool) { return "carol", t == "carol token" }})
	if res, body := odd.doAs("", "GET", "/?token=carol+token", "", nil); res.StatusCode != 400 || !strings.Contains(body, "Authorization: Bearer") {
		t.Errorf("a token a cookie cannot carry = %d %s", res.StatusCode, body)
	}
	if res, _ := odd.doAs("carol token", "POST", "/rpc/inventory", "{}", nil); res.StatusCode != 200 {
		t.Errorf("the same token as a bearer = %d", res.StatusCode)
	}
}

// TestOneSessionCannotCrowdOutAnother: what the handler keeps for pages is bounded per
// session, so a busy session drops its own, not another's.
func TestOneSessionCannotCrowdOutAnother(t *testing.T) {
	e := newPeopleEnv(t, &Options{MaxReplay: 3})
	for i := range 5 {
		e.runIn("bob", e.defineIn("bob", fmt.Sprintf("bob%c", 'a'+i), clockHost, clientCode))
	}
	mine := e.defineIn("alice", "mine", clockHost, clientCode)
	want := e.runIn("alice", mine).ApprovalRequestID
	s := e.streamAs(aliceToken, "")
	s.next()
	if ev := s.next(); ev.name != "cordis/request-run" || !strings.Contains(ev.data, want) {
		t.Fatalf("alice's fresh page was offered %+v, want her request %s", ev, want)
	}

	e.h.Record(Call{Tool: "cordis_stop", Session: "alice", Seq: 1, Args: `{"pluginId":"quiet-1"}`, Result: json.RawMessage(`{}`)})
	for i := range maxActivityCards + MaxActivity {
		session := fmt.Sprintf("busy-%d", i%17)
		e.h.Record(Call{Tool: "cordis_stop", Session: session, Seq: int64(i + 10), Args: `{"pluginId":"x-1"}`, Result: json.RawMessage(`{}`)})
	}
	var list []Activity
	_, en, _ := e.callAs(aliceToken, "activity", nil)
	if json.Unmarshal(en.Value, &list) != nil || !slices.ContainsFunc(list, func(c Activity) bool { return c.Row != nil && c.Row.PluginID == "quiet-1" }) {
		t.Fatalf("alice's card was crowded out: her list = %+v", list)
	}
	e.h.activity.mu.Lock()
	n := len(e.h.activity.cards)
	e.h.activity.mu.Unlock()
	if n > maxActivityCards {
		t.Fatalf("the activity list keeps %d cards, over its bound %d", n, maxActivityCards)
	}
}

// inspectInput is a cordis_inspect_query of a client provider.
func inspectInput(provider, method, input string) dynamic.InspectQueryInput {
	return dynamic.InspectQueryInput{Platform: dynamic.InspectClient, Provider: provider, Method: method, Input: json.RawMessage(input)}
}

// TestSessionStreamsHaveAShare: one session's pages (or a script with its token) hold at
// most a quarter of MaxStreams, so the others and the operator still get in.
func TestSessionStreamsHaveAShare(t *testing.T) {
	e := newPeopleEnv(t, &Options{MaxStreams: 8})
	for range sessionStreams(8) {
		e.streamAs(bobToken, "").next()
	}
	res, body := e.doAs(bobToken, "GET", "/events", "", nil)
	if res.StatusCode != 503 || !strings.Contains(body, "as many as one session may") {
		t.Fatalf("bob's extra stream = %d %s", res.StatusCode, body)
	}
	if c := e.streamAs(aliceToken, "").next(); !isConnected(c, false) {
		t.Fatalf("alice's stream beside bob's = %+v", c)
	}
	if c := e.stream("").next(); !isConnected(c, false) {
		t.Fatalf("the operator's stream beside bob's = %+v", c)
	}
}

func TestScopeSees(t *testing.T) {
	for _, c := range []struct {
		sc      scope
		session string
		want    bool
	}{
		{operator, "alice", true},
		{operator, "", true},
		{scope{session: "alice"}, "alice", true},
		{scope{session: "alice"}, "bob", false},
		{scope{session: "alice"}, "", false}, // an event of no known session: the operator's only
		{scope{}, "", false},                 // the zero scope (no admit) sees nothing
		{scope{}, "alice", false},
	} {
		if got := c.sc.sees(c.session); got != c.want {
			t.Errorf("%+v sees %q = %v, want %v", c.sc, c.session, got, c.want)
		}
	}
}

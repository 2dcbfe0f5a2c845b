package panel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
)

// pageOf reads the page id from a stream's cordis/connected event.
func pageOf(t *testing.T, ev sseEvent) string {
	t.Helper()
	var c Connected
	if err := json.Unmarshal([]byte(ev.data), &c); err != nil || ev.name != "cordis/connected" || c.Page == "" {
		t.Fatalf("connected = %+v (%v)", ev, err)
	}
	return c.Page
}

const echoManifest = `{"id":"Echo","description":"Says back what it is asked.","methods":[{"name":"echo","description":"Echo the input.",
"inputSchema":{"type":"object","properties":{"say":{"type":"string"}},"additionalProperties":false},"outputSchema":{"type":"object","description":"{said}"}}]}`

func TestClientInspectOverTheWire(t *testing.T) {
	e := newEnv(t, nil)
	if _, en := e.call("syncInspectManifest", map[string]any{"page": "page-nope", "providers": []any{}}); en.OK || en.Error.Code != string(runner.ReasonNotAuthorised) || !strings.Contains(en.Error.Message, "reconnect the event stream") {
		t.Fatalf("a manifest for an unknown page = %+v", en.Error)
	}
	s := e.stream("")
	page := pageOf(t, s.next())
	e.value("syncInspectManifest", map[string]any{"page": page, "providers": []json.RawMessage{json.RawMessage(echoManifest)}}, nil)
	if ids := e.clientProviders(); !slices.Equal(ids, []string{"Echo"}) {
		t.Fatalf("client providers = %v", ids)
	}

	type result struct {
		data json.RawMessage
		err  error
	}
	ask := func(input string) chan result {
		ch := make(chan result, 1)
		go func() { d, err := e.queryClient("Echo", "echo", input); ch <- result{d, err} }()
		return ch
	}
	answer := func(resolution any) {
		ev := s.next()
		var q InspectQuery
		if err := json.Unmarshal([]byte(ev.data), &q); err != nil || ev.name != "cordis/inspect-query" || q.Session != "s1" || q.Provider != "Echo" {
			t.Fatalf("inspect query event = %+v", ev)
		}
		var acc runner.Accepted
		e.value("resolveInspectQuery", map[string]any{"page": page, "session": q.Session, "requestId": q.RequestID, "resolution": resolution}, &acc)
		if !acc.Accepted {
			t.Fatalf("the page's answer was refused: %s", acc.Message)
		}
		if ev := s.next(); ev.name != "cordis/inspect-query-resolved" || !strings.Contains(ev.data, q.RequestID) {
			t.Fatalf("resolved = %+v", ev)
		}
	}

	got := ask(`{"say":"hi"}`)
	answer(map[string]any{"ok": true, "data": map[string]string{"said": "hi"}})
	if r := <-got; r.err != nil || string(r.data) != `{"said":"hi"}` {
		t.Fatalf("the model got %s, %v", r.data, r.err)
	}
	// The only page asked fails: its failure settles the query, with its reason.
	got = ask(`{}`)
	answer(map[string]any{"ok": false, "error": map[string]string{"code": "provider-error", "message": "nothing to say"}})
	if r := <-got; r.err == nil || !strings.Contains(r.err.Error(), "provider-error: nothing to say") {
		t.Fatalf("a failed answer gave the model %s, %v", r.data, r.err)
	}

	s.close()
	waitFor(t, "the closed stream's providers to go", func() bool { return len(e.clientProviders()) == 0 })
}

func TestLateAnswerIsToldHowTheRequestEnded(t *testing.T) {
	e := newEnv(t, nil)
	s := e.stream("")
	s.next()
	out := e.request()
	s.next() // definition-changed
	var q RequestRun
	if err := json.Unmarshal([]byte(s.next().data), &q); err != nil || q.RequestID != out.ApprovalRequestID {
		t.Fatalf("request-run = %+v, %v", q, err)
	}
	decline := map[string]any{"requestId": q.RequestID, "ticket": q.Ticket, "resolution": map[string]any{"ok": false, "reason": "rejected"}}
	var acc AcceptedAnswer
	e.value("resolveRequestRun", decline, &acc)
	if !acc.Accepted.Accepted || acc.Settled != "" {
		t.Fatalf("the first answer = %+v", acc)
	}
	e.told("rejected")

	// A second page answers after the first: refused, and told how the request ended.
	var hh HostHalfAnswer
	e.value("runHostHalf", map[string]any{"session": "s1", "pluginId": q.PluginID, "packageId": q.PackageID, "mode": "run", "requestId": q.RequestID, "ticket": q.Ticket}, &hh)
	if hh.OK || hh.Settled != runner.OutcomeRejected {
		t.Fatalf("a late approval = %+v", hh)
	}
	e.value("resolveRequestRun", decline, &acc)
	if acc.Accepted.Accepted || acc.Settled != runner.OutcomeRejected {
		t.Fatalf("a late decline = %+v", acc)
	}
	// A request nobody knows carries no outcome: that refusal is a real one.
	hh = HostHalfAnswer{}
	e.value("runHostHalf", map[string]any{"session": "s1", "pluginId": q.PluginID, "packageId": q.PackageID, "mode": "run", "requestId": "approval-99", "ticket": "x"}, &hh)
	if hh.OK || hh.Settled != "" || hh.Reason != runner.ReasonNotAuthorised {
		t.Fatalf("an unknown request = %+v", hh)
	}
}

// The model's calls through the tools registry reach the activity list with no wiring:
// the runner announces them and the handler records their cards.
func TestActivityRecordsTheModelsCalls(t *testing.T) {
	e := newEnv(t, nil)
	if _, en := e.call("activity", nil); !en.OK || string(en.Value) != "[]" {
		t.Fatalf("the activity list before any call = %s (%+v), want []", en.Value, en.Error)
	}
	s := e.stream("")
	s.next()
	d := e.callTool("cordis_define", map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": "clock"},
		"name": "Clock", "purpose": "Shows the time.", "code": map[string]string{"host": clockHost}})
	if _, err := e.tools().Call(as("s1"), "cordis_inspect_list", nil); err != nil {
		t.Fatal(err)
	}
	// The define's card is sent when the call starts and again when it answers.
	for _, want := range []CardState{CardRunning, CardOK} {
		ev := s.next()
		for ev.name == "cordis/definition-changed" {
			ev = s.next()
		}
		var w Activity
		if err := json.Unmarshal([]byte(ev.data), &w); err != nil || ev.name != "cordis/activity" || w.State != want || w.Define == nil || w.Define.Name != "Clock" {
			t.Fatalf("activity event = %+v, want the define card %s", ev, want)
		}
	}
	if _, err := e.tools().Call(as("s1"), "cordis_stop", json.RawMessage(`{"pluginId":"nope-1"}`)); err == nil {
		t.Fatal("stopping an unknown Plugin succeeded")
	}
	// A call cut off by its turn's end reads stopped.
	runner.ToolCall.Emit(e.r.Fiber().Context(), runner.ToolCallEvent{Session: "s1", Tool: "cordis_undefine", Seq: 1 << 40, Args: `{"pluginId":"clock-1"}`, Interrupted: true})

	var list []Activity
	e.value("activity", nil, &list)
	if len(list) != 3 || list[0].Tool != "cordis_undefine" || list[0].State != CardStopped || list[0].Row.Error != ErrorInterrupted ||
		list[1].Tool != "cordis_stop" || list[1].State != CardError || list[1].Row.PluginID != "nope-1" ||
		list[2].Tool != "cordis_define" || list[2].Define.PluginID == "" || !strings.Contains(string(d), list[2].Define.PluginID) || list[2].Session != "s1" {
		t.Fatalf("activity = %+v", list)
	}
	if list[0].Seq <= list[1].Seq || list[1].Seq <= list[2].Seq {
		t.Fatalf("the list is not newest first: %+v", list)
	}
	if _, en := e.call("activity", map[string]string{"since": "1"}); en.OK || en.Error.Code != "bad-request" {
		t.Fatalf("activity with an argument = %+v", en.Error)
	}
}

func TestActivityKeepsTheLastCards(t *testing.T) {
	e := newEnv(t, nil)
	for i := range MaxActivity + 5 {
		e.h.Record(Call{Tool: "cordis_stop", Session: "s1", Seq: int64(i + 1), Args: fmt.Sprintf(`{"pluginId":"p-%d"}`, i+1), Result: json.RawMessage(`{}`)})
	}
	e.h.Record(Call{Tool: "cordis_inspect_self", Session: "s1", Seq: 1000}) // no card
	var list []Activity
	e.value("activity", nil, &list)
	if len(list) != MaxActivity || list[0].Seq != MaxActivity+5 || list[len(list)-1].Seq != 6 {
		t.Fatalf("activity keeps %d cards from seq %d to %d, want %d from %d to 6", len(list), list[0].Seq, list[len(list)-1].Seq, MaxActivity, MaxActivity+5)
	}
	// Recording the same call again replaces its card.
	e.h.Record(Call{Tool: "cordis_stop", Session: "s1", Seq: 6, Args: `{"pluginId":"p-6"}`, Error: "refused"})
	e.value("activity", nil, &list)
	if last := list[len(list)-1]; len(list) != MaxActivity || last.State != CardError || last.Row.Error != "refused" {
		t.Fatalf("the replaced card = %+v", last)
	}
}

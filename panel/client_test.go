package panel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/page"
)

// A page of one session uses the Client's verbs against another session's ids (even with
// that session's ticket and capability): every answer is the answer for ids that do not
// exist, and nothing of the other session changes.
func TestClientVerbsOfAnotherSession(t *testing.T) {
	e := newPeopleEnv(t, nil)
	op := e.stream("")
	op.next()
	alice := e.hold("alice", op)
	e.hold("bob", op)
	bob := e.client(bobToken)
	ctx := context.Background()
	ghost := func(id string) string { return id[:strings.LastIndex(id, "-")] + "-999" }
	// ids are the ids a case names: alice's, or ids like them that do not exist.
	type ids struct{ asking, request, running string }
	theirs := ids{alice.asking.PluginID, alice.request, alice.running.PluginID}
	missing := ids{ghost(theirs.asking), ghost(theirs.request), ghost(theirs.running)}
	report := page.ReportArgs{PluginRunID: alice.runID, Capability: alice.capability}
	before := e.rowOf(alice.running.PluginID)
	for _, agent := range []string{"alice", "bob"} {
		for _, c := range []struct {
			verb string
			call func(id ids) (any, error)
		}{
			{"RunHostHalf for a request", func(id ids) (any, error) {
				return bob.RunHostHalf(ctx, page.RunHostHalfArgs{Session: agent, PluginID: id.asking, PackageID: alice.asking.PackageID, Mode: "run",
					RequestID: id.request, Ticket: alice.ticket, ApproveFutureVersions: true})
			}},
			{"RunHostHalf direct", func(id ids) (any, error) {
				return bob.RunHostHalf(ctx, page.RunHostHalfArgs{Session: agent, PluginID: id.running, PackageID: alice.running.PackageID, Mode: "run"})
			}},
			{"GetClientCode", func(id ids) (any, error) {
				return bob.GetClientCode(ctx, page.ClientCodeArgs{Session: agent, PluginID: id.running, PluginRunID: alice.runID})
			}},
			{"ResolveRequestRun", func(id ids) (any, error) {
				return bob.ResolveRequestRun(ctx, page.ResolveArgs{RequestID: id.request, Ticket: alice.ticket, Resolution: page.Resolution{Reason: "rejected"}})
			}},
			{"SettleUserRun", func(id ids) (any, error) {
				return bob.SettleUserRun(ctx, page.SettleUserRunArgs{Session: agent, PluginID: id.running, Resolution: page.Resolution{OK: true, PluginRunID: alice.runID, Token: "x"}})
			}},
			{"RevokeGrant", func(id ids) (any, error) {
				return bob.RevokeGrant(ctx, page.RevokeArgs{Session: agent, PluginID: id.running, PackageID: alice.running.PackageID, Future: true})
			}},
			{"ReportRenderFailure", func(id ids) (any, error) {
				a := RenderFailureArgs{ReportArgs: report}
				a.Session, a.PluginID, a.Failure.Slot, a.Failure.Message = agent, id.running, "cordis.card", "bob was here"
				return nil, bob.ReportRenderFailure(ctx, a)
			}},
			{"ReportClientGuardFailure", func(id ids) (any, error) {
				a := GuardFailureArgs{ReportArgs: report, Failure: GuardFailure{Message: "bob was here"}}
				a.Session, a.PluginID = agent, id.running
				return nil, bob.ReportClientGuardFailure(ctx, a)
			}},
			{"Invoke", func(id ids) (any, error) {
				return bob.Invoke(ctx, page.InvokeArgs{PluginID: id.running, PluginRunID: alice.runID, Capability: alice.capability, Method: "now", Args: json.RawMessage(`{}`)})
			}},
			{"StopFromPanel", func(id ids) (any, error) {
				return nil, bob.StopFromPanel(ctx, page.PanelPluginArgs{Session: agent, PluginID: id.running})
			}},
			{"UndefineFromPanel", func(id ids) (any, error) {
				return bob.UndefineFromPanel(ctx, page.PanelPluginArgs{Session: agent, PluginID: id.running})
			}},
		} {
			got, want := outcome(c.call(theirs)), outcome(c.call(missing))
			for i, id := range []string{theirs.asking, theirs.request, theirs.running} {
				got = strings.ReplaceAll(got, id, []string{missing.asking, missing.request, missing.running}[i])
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s as %s: bob's answer about alice's ids differs from his answer about ids that do not exist (-missing +theirs):\n%s", c.verb, agent, d)
			}
			if strings.Contains(got, `"t":42`) || strings.Contains(got, "Clock of alice") {
				t.Errorf("%s as %s reached alice's Plugin: %s", c.verb, agent, got)
			}
		}
	}
	if d := cmp.Diff(before, e.rowOf(alice.running.PluginID)); d != "" {
		t.Errorf("alice's running Plugin changed under bob's calls (-before +after):\n%s", d)
	}
	if m := e.r.Messages("alice"); len(m) != 0 {
		t.Errorf("alice's model was told of bob's calls: %+v", m)
	}
}

// outcome is a call's answer as JSON, or its error's text.
func outcome(v any, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// rowOf is the operator's inventory row of Plugin id, through the Client.
func (e *env) rowOf(id string) runner.InventoryRow {
	e.t.Helper()
	inv, err := e.client("").Inventory(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	i := slices.IndexFunc(inv.Rows, func(r runner.InventoryRow) bool { return r.PluginID == id })
	if i < 0 {
		e.t.Fatalf("%s is not in the inventory", id)
	}
	return inv.Rows[i]
}

// A hostile or broken server cannot make the Client allocate without bound, hang past its
// context, or pass off a broken event as a good one.
func TestClientAgainstAHostileServer(t *testing.T) {
	const max = 64 << 10
	// flood writes a line that ends only after 64 MiB (or when the client hangs up).
	flood := func(w http.ResponseWriter, head string) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, head)
		chunk := strings.Repeat("x", 32<<10)
		for range (64 << 20) / len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, "\n\n")
	}
	stream := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, body)
		}
	}
	for _, c := range []struct {
		name    string
		serve   http.HandlerFunc
		read    func(*Client) error // what the client does; its error is checked
		wantErr string
	}{
		{"an endless line", func(w http.ResponseWriter, _ *http.Request) { flood(w, "event: cordis/reset\ndata: ") }, readAll, "over 65536 bytes (ClientOptions.MaxEventBytes)"},
		{"an endless comment", func(w http.ResponseWriter, _ *http.Request) { flood(w, ": ") }, readAll, "over 65536 bytes"},
		{"an event of many small lines", stream("event: cordis/reset\n" + strings.Repeat("data: x\n", max/4) + "\n"), readAll, "over 65536 bytes"},
		{"an event cut short", stream("event: cordis/connected\ndata: {\"resumed\":false,\"page\":\"p\"}\n"), readAll, io.ErrUnexpectedEOF.Error()},
		{"a line cut short", stream("event: cordis/connected\ndata: {\"resumed\":fal"), readAll, io.ErrUnexpectedEOF.Error()},
		{"a refusal", func(w http.ResponseWriter, _ *http.Request) {
			writeError(w, http.StatusUnauthorized, "unauthorized", "no token")
		}, readAll, "panel: unauthorized: no token"},
		{"an HTML page", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<h1>bad gateway</h1>")
		}, readAll, "HTTP 502 (text/html) is not an event stream"},
		{"an endless answer", func(w http.ResponseWriter, _ *http.Request) { flood(w, `{"ok":true,"value":"`) }, readInventory, "over 65536 bytes (ClientOptions.MaxAnswerBytes)"},
		{"an answer that is not JSON", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<h1>bad gateway</h1>")
		}, readInventory, "the answer (HTTP 502, text/html; charset=utf-8) is not the panel's JSON"},
		{"an answer of the wrong shape", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"ok":true,"value":{"rows":"many"}}`)
		}, readInventory, "panel: inventory: decoding the value"},
		{"an answer with neither ok nor error", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{}`)
		}, readInventory, "without ok or error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.serve)
			defer srv.Close()
			cl, err := NewClient(srv.URL, "t", &ClientOptions{MaxAnswerBytes: max, MaxEventBytes: max})
			if err != nil {
				t.Fatal(err)
			}
			err = c.read(cl)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("err = %v, want one saying %q", err, c.wantErr)
			}
		})
	}
}

// readAll reads the stream to its end, failing on a broken event: the error that ended
// the stream, and none for an orderly end.
func readAll(c *Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // generous: a flood takes far less
	defer cancel()
	s, err := c.Events(ctx, "")
	if err != nil {
		return err
	}
	defer s.Close()
	for {
		ev, err := s.Next()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		case ev.Payload == nil:
			return fmt.Errorf("an unknown event %s", ev.Name)
		}
	}
}

func readInventory(c *Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Inventory(ctx)
	return err
}

// An event whose data is not its type's is returned with an error and the stream goes on;
// ids, multi-line data, CRLF, comments and retry fields are read as the stream format
// says, and an event the Client does not know comes with its data and no Payload.
func TestClientReadsTheStreamFormat(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "retry: 500\n\n: ping\n\n"+
			"event: cordis/request-run\nid: e-1\ndata: {\"requestId\": 7}\n\n"+
			"event: cordis/reset\r\ndata: {\"reason\":\r\ndata: \"behind\"}\r\n\r\n"+
			"event: cordis/news\nid: e-2\ndata: {\"x\":1}\n\n"+
			"event: cordis/connected\ndata:{\"resumed\":true,\"page\":\"p-1\"}\n\n")
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL+"/", "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Events(context.Background(), "e-0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	type read struct {
		Event Event
		Err   string
		Last  string
	}
	var got []read
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		r := read{Event: ev, Last: s.LastID()}
		if err != nil {
			r.Err = err.Error()
		}
		got = append(got, r)
	}
	want := []read{
		{Event: Event{Name: "cordis/request-run", ID: "e-1", Data: json.RawMessage(`{"requestId": 7}`)}, Last: "e-1",
			Err: `panel: event cordis/request-run (id "e-1"): its data is not a panel.RequestRun: json: cannot unmarshal number into Go struct field RequestRun.requestId of type string`},
		{Event: Event{Name: "cordis/reset", Data: json.RawMessage("{\"reason\":\n\"behind\"}"), Payload: Reset{Reason: "behind"}}, Last: "e-1"},
		{Event: Event{Name: "cordis/news", ID: "e-2", Data: json.RawMessage(`{"x":1}`)}, Last: "e-2"},
		{Event: Event{Name: "cordis/connected", Data: json.RawMessage(`{"resumed":true,"page":"p-1"}`), Payload: Connected{Resumed: true, Page: "p-1"}}, Last: "e-2"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

// A stream resumes after its LastID: the events it missed follow, and no others.
func TestClientResumesWithLastID(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client("")
	ctx := context.Background()
	s, err := c.Events(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := s.Next(); err != nil || ev.Payload != (Connected{Resumed: false, Page: ev.Payload.(Connected).Page}) {
		t.Fatalf("first event = %+v, %v", ev, err)
	}
	first := e.define(clockHost, "")
	if ev, err := s.Next(); err != nil || ev.Payload.(DefinitionChanged).PluginID != first.PluginID {
		t.Fatalf("got %+v, %v; want %s defined", ev, err, first.PluginID)
	}
	last := s.LastID()
	s.Close()
	if _, err := s.Next(); err == nil {
		t.Fatal("Next after Close gave no error")
	}
	missed := e.define(clockHost, "")
	s, err = c.Events(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []Payload
	for range 2 {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := ev.Payload.(Connected); ok {
			ev.Payload = Connected{Resumed: c.Resumed} // the page id is new
		}
		got = append(got, ev.Payload)
	}
	want := []Payload{Connected{Resumed: true}, DefinitionChanged{Session: "s1", PluginID: missed.PluginID, PackageID: missed.PackageID, Change: runner.Defined}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the resumed stream (-want +got):\n%s", d)
	}
}

// Cancelling the context of a stream ends a Next that waits; cancelling a verb's ends the
// call, even against a server that never answers.
func TestClientContextCancels(t *testing.T) {
	var wg sync.WaitGroup
	defer wg.Wait()
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/events" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		}
		select { // never a byte more
		case <-req.Context().Done():
		case <-hold:
		}
	}))
	defer srv.Close()
	defer close(hold)
	c, err := NewClient(srv.URL, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := c.Events(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	wg.Go(func() { _, err := s.Next(); errs <- err })
	vctx, vcancel := context.WithCancel(context.Background())
	wg.Go(func() { _, err := c.Inventory(vctx); errs <- err })
	cancel()
	vcancel()
	for range 2 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("after cancel: %v, want context.Canceled", err)
		}
	}
}

// Every verb the handler answers has a Client method named after it, and every event the
// Client decodes has a name of its own.
func TestClientHasEveryVerb(t *testing.T) {
	ct := reflect.TypeFor[*Client]()
	for name := range verbs {
		if _, ok := ct.MethodByName(strings.ToUpper(name[:1]) + name[1:]); !ok {
			t.Errorf("the verb %s has no Client method", name)
		}
	}
	names := map[string]bool{}
	for _, p := range payloads {
		if names[p.EventName()] {
			t.Errorf("two payloads are named %s", p.EventName())
		}
		names[p.EventName()] = true
	}
}

func TestNewClientRefuses(t *testing.T) {
	for _, c := range []struct{ base, token, says string }{
		{"127.0.0.1:8080", "t", "is not the panel's address"},
		{"ftp://127.0.0.1/", "t", "is not the panel's address"},
		{"http://127.0.0.1/?token=t", "t", "pass the token as NewClient's second argument"},
		{"http://127.0.0.1/", "", "no token"},
	} {
		if _, err := NewClient(c.base, c.token, nil); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("NewClient(%q, %q) = %v, want an error saying %q", c.base, c.token, err, c.says)
		}
	}
}

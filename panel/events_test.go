package panel

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

const clientCode = `return (ctx) => {}`

// request runs a client-bearing Package for s1: it waits for approval.
func (e *env) request() dynamic.RunOutput {
	e.t.Helper()
	d := e.define(clockHost, clientCode)
	out, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if err != nil || out.Status != "awaiting-approval" {
		e.t.Fatalf("Run = %+v, %v", out, err)
	}
	return out
}

// isConnected reports whether ev is the cordis/connected event that starts a stream, with
// resumed as given and the page id the runner gave the connection.
func isConnected(ev sseEvent, resumed bool) bool {
	var c Connected
	return ev.name == "cordis/connected" && json.Unmarshal([]byte(ev.data), &c) == nil &&
		c.Resumed == resumed && strings.HasPrefix(c.Page, "page-")
}

func TestEventsStreamResumeAndReplay(t *testing.T) {
	e := newEnv(t, nil)
	s := e.stream("")
	if ev := s.next(); !isConnected(ev, false) || !strings.HasSuffix(ev.id, "-0") {
		t.Fatalf("first event = %+v", ev)
	}
	out := e.request()
	if ev := s.next(); ev.name != "cordis/definition-changed" {
		t.Fatalf("the define's event = %+v", ev)
	}
	ev := s.next()
	var q RequestRun
	if err := json.Unmarshal([]byte(ev.data), &q); err != nil || ev.name != "cordis/request-run" || q.RequestID != out.ApprovalRequestID ||
		q.Ticket == "" || q.Session != "s1" || !q.RequiresApproval || !q.HasClientHalf || q.Name != "Clock" {
		t.Fatalf("request-run = %+v (%+v)", ev, q)
	}
	s.close()

	// Stop cancels the request while nobody listens; a stream resuming from the
	// request-run event gets exactly what it missed.
	if _, err := e.r.Stop(as("s1"), dynamic.StopInput{PluginID: out.PluginID}); err != nil {
		t.Fatal(err)
	}
	s2 := e.stream(ev.id)
	if c := s2.next(); !isConnected(c, true) {
		t.Fatalf("resumed = %+v", c)
	}
	if r := s2.next(); r.name != "cordis/request-run-resolved" || !strings.Contains(r.data, `"outcome":"cancelled"`) {
		t.Fatalf("missed event = %+v", r)
	}
	// An id of another handler (or process) does not resume.
	s3 := e.stream("0000-1")
	if c := s3.next(); !isConnected(c, false) {
		t.Fatalf("foreign id = %+v", c)
	}
}

func TestFreshStreamGetsPendingRequests(t *testing.T) {
	e := newEnv(t, nil)
	out := e.request()
	s := e.stream("")
	if c := s.next(); !isConnected(c, false) {
		t.Fatalf("connected = %+v", c)
	}
	ev := s.next()
	if ev.name != "cordis/request-run" || ev.id != "" || !strings.Contains(ev.data, `"requestId":"`+out.ApprovalRequestID+`"`) {
		t.Fatalf("pending request = %+v", ev)
	}
	// Once resolved it is no longer offered.
	if _, err := e.r.Stop(as("s1"), dynamic.StopInput{PluginID: out.PluginID}); err != nil {
		t.Fatal(err)
	}
	if ev := s.next(); ev.name != "cordis/request-run-resolved" {
		t.Fatalf("resolved = %+v", ev)
	}
	s2 := e.stream("")
	s2.next()
	d := e.define(clockHost, "") // its event comes next: nothing was offered before it
	if ev := s2.next(); ev.name != "cordis/definition-changed" || !strings.Contains(ev.data, `"pluginId":"`+d.PluginID+`"`) {
		t.Fatalf("a resolved request was offered again: %+v", ev)
	}
}

func TestStreamTooFarBehindIsReset(t *testing.T) {
	e := newEnv(t, &Options{MaxReplay: 2})
	s := e.stream("")
	first := s.next()
	s.close()
	for range 2 {
		out := e.request()
		if _, err := e.r.Stop(as("s1"), dynamic.StopInput{PluginID: out.PluginID}); err != nil {
			t.Fatal(err)
		}
	}
	s2 := e.stream(first.id) // 4 events were published, 2 are kept
	if c := s2.next(); !isConnected(c, false) {
		t.Fatalf("behind = %+v", c)
	}
}

func TestCloseEndsStreams(t *testing.T) {
	e := newEnv(t, nil)
	s1, s2 := e.stream(""), e.stream("")
	s1.next()
	s2.next()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := e.h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !s1.ended() || !s2.ended() {
		t.Fatal("a stream is still open after Close")
	}
	if res, body := e.do("GET", "/events", "", true, nil); res.StatusCode != 503 || !strings.Contains(body, `"code":"closed"`) {
		t.Fatalf("after Close = %d %s", res.StatusCode, body)
	}
	// Close is idempotent.
	if err := e.h.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestMaxStreams(t *testing.T) {
	e := newEnv(t, &Options{MaxStreams: 1})
	s := e.stream("")
	s.next()
	res, body := e.do("GET", "/events", "", true, nil)
	if res.StatusCode != 503 || !strings.Contains(body, "MaxStreams") {
		t.Fatalf("second stream = %d %s", res.StatusCode, body)
	}
	s.close()
}

// TestDefinitionChangedEvents: a define and an undefine reach the stream at once (the page
// needs no poll for them), with the session, the Plugin, the new Package and the change.
func TestDefinitionChangedEvents(t *testing.T) {
	e := newEnv(t, nil)
	s := e.stream("")
	s.next() // cordis/connected
	d := e.define(clockHost, "")
	want := func(change, pkg string) {
		t.Helper()
		ev := s.next()
		var w DefinitionChanged
		if err := json.Unmarshal([]byte(ev.data), &w); err != nil || ev.name != "cordis/definition-changed" ||
			w.Session != "s1" || w.PluginID != d.PluginID || w.PackageID != pkg || string(w.Change) != change {
			t.Fatalf("event = %+v (%+v), want cordis/definition-changed %s of %s %q", ev, w, change, d.PluginID, pkg)
		}
	}
	want("defined", d.PackageID)
	d2, err := e.r.Define(as("s1"), dynamic.DefineInput{Plugin: dynamic.Target{Kind: "existing", PluginID: d.PluginID}, Name: "Clock", Purpose: "Shows the time.", Code: dynamic.Code{Host: ptr(clockHost)}})
	if err != nil {
		t.Fatal(err)
	}
	want("defined", d2.PackageID)
	if _, err := e.r.Undefine(as("s1"), dynamic.UndefineInput{PluginID: d.PluginID}); err != nil {
		t.Fatal(err)
	}
	want("undefined", "")
	// A refused define changes nothing and says nothing.
	if _, err := e.r.Define(as("s1"), dynamic.DefineInput{Plugin: dynamic.Target{Kind: "existing", PluginID: d.PluginID}, Name: "Clock", Purpose: "x", Code: dynamic.Code{Host: ptr(clockHost)}}); err == nil {
		t.Fatal("a define on an undefined Plugin succeeded")
	}
	if _, err := e.r.Undefine(as("s1"), dynamic.UndefineInput{PluginID: d.PluginID}); err == nil {
		t.Fatal("a second undefine succeeded")
	}
	d3 := e.define(clockHost, "")
	if ev := s.next(); !strings.Contains(ev.data, `"pluginId":"`+d3.PluginID+`"`) {
		t.Fatalf("after refusals the next event = %+v, want the define of %s", ev, d3.PluginID)
	}
}

// TestEventsStreamSetsRetry reads the stream's first bytes: a retry field comes before
// cordis/connected, so a page whose stream drops reconnects after half a second rather
// than after the browser's default of about 3 s.
func TestEventsStreamSetsRetry(t *testing.T) {
	e := newEnv(t, nil)
	req, _ := http.NewRequest("GET", e.srv.URL+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+e.h.Token())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	head := make([]byte, len(retryField)+len("event: cordis/connected\n"))
	if _, err := io.ReadFull(res.Body, head); err != nil {
		t.Fatalf("reading the stream's start: %v", err)
	}
	if want := "retry: 500\n\nevent: cordis/connected\n"; string(head) != want {
		t.Fatalf("the stream starts %q, want %q", head, want)
	}
}

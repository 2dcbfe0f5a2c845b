package inspect

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// queryWatch records the client inspect events of an env.
type queryWatch struct {
	asked    chan QueryEvent
	mu       sync.Mutex
	resolved []string
}

func (e *env) watchQueries() *queryWatch {
	q := &queryWatch{asked: make(chan QueryEvent, 16)}
	e.root.Plugin(&kit.Plugin{Name: "query-watcher", Apply: func(c *kit.Context) error {
		_, _ = Query.On(c, func(ev QueryEvent) { q.asked <- ev })
		_, _ = QueryResolved.On(c, func(ev QueryResolvedEvent) {
			q.mu.Lock()
			q.resolved = append(q.resolved, ev.RequestID)
			q.mu.Unlock()
		})
		return nil
	}})
	return q
}

func (q *queryWatch) next(t *testing.T) QueryEvent {
	t.Helper()
	select {
	case ev := <-q.asked:
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no cordis/inspect-query event")
	}
	panic("unreachable")
}

func (q *queryWatch) takeResolved() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	r := q.resolved
	q.resolved = nil
	return r
}

// A testPage is a connected panel page.
type testPage struct {
	e      *env
	id     string
	cancel context.CancelFunc
}

func (e *env) connect(providers ...Manifest) *testPage {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(cancel)
	p := &testPage{e: e, id: e.reg.ConnectPage(ctx), cancel: cancel}
	p.publish(providers...)
	return p
}

func (p *testPage) publish(providers ...Manifest) {
	p.e.t.Helper()
	if err := p.e.reg.SyncManifest(SyncManifestArgs{Page: p.id, Providers: providers}); err != nil {
		p.e.t.Fatal(err)
	}
}

func (p *testPage) answer(ev QueryEvent, res Resolution) page.Accepted {
	return p.e.reg.ResolveQuery(ResolveQueryArgs{Page: p.id, Session: ev.Session, RequestID: ev.RequestID, Resolution: res})
}

func okAnswer(data string) Resolution {
	return Resolution{OK: true, Data: json.RawMessage(data)}
}
func failAnswer(code, msg string) Resolution {
	return Resolution{Error: &Failure{Code: code, Message: msg}}
}

// gone disconnects the page and waits until its manifest has left the list.
func (p *testPage) gone() {
	p.e.t.Helper()
	p.cancel()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		p.e.reg.mu.Lock()
		connected := p.e.reg.pageByID(p.id) != nil
		p.e.reg.mu.Unlock()
		if !connected {
			return
		}
	}
	p.e.t.Fatal("the page's manifest outlived its connection")
}

type queryResult struct {
	out dynamic.InspectQueryOutput
	err error
}

// ask starts a client query as session s1; the result arrives on the channel.
func (e *env) ask(ctx context.Context, provider, method, input string) <-chan queryResult {
	done := make(chan queryResult, 1)
	in := dynamic.InspectQueryInput{Platform: dynamic.InspectClient, Provider: provider, Method: method}
	if input != "" {
		in.Input = json.RawMessage(input)
	}
	go func() {
		out, err := e.inspectQuery(ctx, in)
		done <- queryResult{out, err}
	}()
	return done
}

func waitQuery(t *testing.T, c <-chan queryResult) queryResult {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("the client query did not return")
	}
	panic("unreachable")
}

func TestClientManifestsPerPage(t *testing.T) {
	e := newEnv(t, nil)
	a := e.connect(manifest("Slots", "listSubTree"))
	b := e.connect(manifest("Theme", "listTokens"), manifest("Slots", "listSubTree", "describe"))
	list := func() string {
		out := e.reg.List()
		s := providerIDs(out)
		for _, p := range out.Providers {
			if p.ID == "Slots" {
				for _, m := range p.Methods {
					s += " Slots." + m.Name
				}
			}
		}
		return s
	}
	const host = "host:Service host:Event host:Builtin host:Tool"
	if got, want := list(), host+" client:Slots client:Theme Slots.listSubTree Slots.describe"; got != want {
		t.Fatalf("list = %q, want %q", got, want)
	}
	// Page a publishing nothing takes only its own providers away (no last writer wins).
	a.publish()
	if got, want := list(), host+" client:Theme client:Slots Slots.listSubTree Slots.describe"; got != want {
		t.Fatalf("after a published nothing: %q, want %q", got, want)
	}
	b.gone()
	if got := list(); got != host {
		t.Fatalf("after b disconnected: %q, want the host providers only", got)
	}
	err := e.reg.SyncManifest(SyncManifestArgs{Page: b.id, Providers: []Manifest{manifest("Theme", "listTokens")}})
	if page.ReasonOf(err) != page.ReasonNotAuthorised || !strings.Contains(err.Error(), "the page is not connected") {
		t.Fatalf("publish after disconnect: %v", err)
	}
}

func TestSyncManifestChecks(t *testing.T) {
	e := newEnv(t, &Options{MaxMethods: 3})
	p := e.connect(manifest("Slots", "listSubTree"))
	for _, tc := range []struct {
		name      string
		page      string
		providers []Manifest
		want      string
	}{
		{"unknown page", "page-guessed", nil, "the page is not connected"},
		{"no page id", "", nil, "the page is not connected"},
		{"twice", p.id, []Manifest{manifest("Slots", "a"), manifest("Slots", "b")}, `provider "Slots" is listed twice`},
		{"too many", p.id, []Manifest{manifest("A", "a", "b"), manifest("B", "c", "d")}, "lists 4 methods; a page may publish at most 3 (runner.Options.MaxInspectMethods)"},
		{"invalid", p.id, []Manifest{{ID: "Theme", Description: "d"}}, `syncInspectManifest: providers[0]: provider "Theme" has no methods`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := e.reg.SyncManifest(SyncManifestArgs{Page: tc.page, Providers: tc.providers})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// A refused manifest changed nothing.
	out := e.reg.List()
	if got := providerIDs(out); !strings.HasSuffix(got, "host:Tool client:Slots") {
		t.Fatalf("list = %q after refused manifests", got)
	}
}

func TestClientQueryAnswered(t *testing.T) {
	e := newEnv(t, nil)
	qs := e.watchQueries()
	p := e.connect(manifest("Slots", "listSubTree"))
	res := e.ask(as("s1"), "Slots", "listSubTree", `{"root":"main"}`)
	ev := qs.next(t)
	if ev.RequestID != "inspect-1" || ev.Session != "s1" || ev.Provider != "Slots" || ev.Method != "listSubTree" || ev.Input != `{"root":"main"}` {
		t.Fatalf("event = %+v", ev)
	}
	if acc := p.answer(ev, okAnswer(`{ "ok" : true }`)); !acc.Accepted {
		t.Fatalf("answer refused: %s", acc.Message)
	}
	r := waitQuery(t, res)
	if r.err != nil || r.out.Platform != dynamic.InspectClient || string(r.out.Data) != `{"ok":true}` {
		t.Fatalf("query = %+v, %v", r.out, r.err)
	}
	if got := qs.takeResolved(); len(got) != 1 || got[0] != "inspect-1" {
		t.Errorf("resolved = %v", got)
	}
	if acc := p.answer(ev, okAnswer(`{"ok":true}`)); acc.Accepted || !strings.Contains(acc.Message, "not pending") {
		t.Errorf("an answer after the query settled: %+v", acc)
	}

	// The checks before anything is sent: provider, method, input.
	for _, tc := range []struct{ provider, method, input, want string }{
		{"Theme", "listTokens", "", `client inspect provider "Theme" is not published by any connected panel page; client providers now: Slots`},
		{"Slots", "list", "", `client inspect provider Slots has no method "list"; its methods: listSubTree`},
		{"Slots", "listSubTree", `"main"`, "client inspect provider Slots.listSubTree rejected input"},
	} {
		if r := waitQuery(t, e.ask(as("s1"), tc.provider, tc.method, tc.input)); page.ReasonOf(r.err) != page.ReasonInvalid || !strings.Contains(r.err.Error(), tc.want) {
			t.Errorf("%s.%s: %v, want %q", tc.provider, tc.method, r.err, tc.want)
		}
	}
	if len(qs.asked) != 0 {
		t.Errorf("a refused query was sent to the pages")
	}
}

func TestClientQueryAnswerRules(t *testing.T) {
	e := newEnv(t, nil)
	qs := e.watchQueries()
	a := e.connect(manifest("Slots", "listSubTree"))
	b := e.connect(manifest("Slots", "listSubTree"))
	other := e.connect(manifest("Theme", "listTokens"))
	res := e.ask(as("s1"), "Slots", "listSubTree", "")
	ev := qs.next(t)
	if ev.Input != "" {
		t.Errorf("absent input sent as %q", ev.Input)
	}
	for _, tc := range []struct {
		name string
		acc  page.Accepted
		want string
	}{
		{"wrong agent", e.reg.ResolveQuery(ResolveQueryArgs{Page: a.id, Session: "s2", RequestID: ev.RequestID, Resolution: okAnswer(`{"ok":true}`)}), `was not asked for agent "s2"`},
		{"unknown page", e.reg.ResolveQuery(ResolveQueryArgs{Page: "page-x", Session: "s1", RequestID: ev.RequestID, Resolution: okAnswer(`{"ok":true}`)}), "this page may not answer"},
		// The panel blanks the id of a page another scope holds: no id never matches, and
		// an id one byte off is not the page.
		{"no page id", e.reg.ResolveQuery(ResolveQueryArgs{Page: "", Session: "s1", RequestID: ev.RequestID, Resolution: okAnswer(`{"ok":true}`)}), "this page may not answer"},
		{"page id one byte off", e.reg.ResolveQuery(ResolveQueryArgs{Page: b.id[:len(b.id)-1] + "~", Session: "s1", RequestID: ev.RequestID, Resolution: okAnswer(`{"ok":true}`)}), "this page may not answer"},
		{"page not asked", other.answer(ev, okAnswer(`{"ok":true}`)), "did not publish Slots.listSubTree"},
		{"invalid data", a.answer(ev, okAnswer(`{"nope":1}`)), "counted as this page's failure: the page answered data its outputSchema rejects"},
		{"second answer", a.answer(ev, okAnswer(`{"ok":true}`)), "already answered"},
	} {
		if wantOK := strings.HasPrefix(tc.want, "counted"); tc.acc.Accepted != wantOK || !strings.Contains(tc.acc.Message, tc.want) {
			t.Errorf("%s: %+v, want accepted=%v and %q", tc.name, tc.acc, wantOK, tc.want)
		}
	}
	select {
	case r := <-res:
		t.Fatalf("the query settled while page b had not answered: %+v", r)
	default:
	}
	if acc := b.answer(ev, okAnswer(`{"ok":1}`)); !acc.Accepted || acc.Message != "" {
		t.Fatalf("b's valid answer: %+v", acc)
	}
	if r := waitQuery(t, res); r.err != nil || string(r.out.Data) != `{"ok":1}` {
		t.Fatalf("query = %s, %v", r.out.Data, r.err)
	}
}

func TestClientQueryFailsOnEveryPage(t *testing.T) {
	e := newEnv(t, nil)
	qs := e.watchQueries()
	a := e.connect(manifest("Slots", "listSubTree"))
	b := e.connect(manifest("Slots", "listSubTree"))
	res := e.ask(as("s1"), "Slots", "listSubTree", "")
	ev := qs.next(t)
	a.answer(ev, failAnswer("provider-error", "Client Slots service is not running"))
	b.answer(ev, Resolution{})
	r := waitQuery(t, res)
	want := "client inspect provider Slots.listSubTree failed on every connected page that publishes it: provider-error: Client Slots service is not running; provider-error: the page gave no reason. Do not repeat the same query unchanged"
	if page.ReasonOf(r.err) != page.ReasonProviderError || !strings.Contains(r.err.Error(), want) {
		t.Fatalf("err = %v, want %q", r.err, want)
	}
	if got := qs.takeResolved(); len(got) != 1 {
		t.Errorf("resolved = %v", got)
	}
	// Identical failures are reported once; a long message is clipped.
	res = e.ask(as("s1"), "Slots", "listSubTree", "")
	ev = qs.next(t)
	long := strings.Repeat("é", maxFailureBytes)
	a.answer(ev, failAnswer("provider-error", long))
	b.answer(ev, failAnswer("provider-error", long))
	r = waitQuery(t, res)
	if n := strings.Count(r.err.Error(), "éé…"); n != 1 || len(r.err.Error()) > 2*maxFailureBytes {
		t.Fatalf("err (%d bytes) repeats or keeps the long message: %d copies", len(r.err.Error()), n)
	}
}

func TestClientQueryEnds(t *testing.T) {
	e := newEnv(t, &Options{QueryTimeout: 50 * time.Millisecond})
	qs := e.watchQueries()
	p := e.connect(manifest("Slots", "listSubTree"))

	r := waitQuery(t, e.ask(as("s1"), "Slots", "listSubTree", ""))
	ev := qs.next(t)
	if page.ReasonOf(r.err) != page.ReasonExpired || !strings.Contains(r.err.Error(), "client inspect query Slots.listSubTree ("+ev.RequestID+") expired: no connected panel page answered within 50ms") {
		t.Fatalf("expiry: %v", r.err)
	}
	if acc := p.answer(ev, okAnswer(`{"ok":true}`)); acc.Accepted {
		t.Error("an answer after the expiry was accepted")
	}

	ctx, cancel := context.WithCancel(as("s1"))
	res := e.ask(ctx, "Slots", "listSubTree", "")
	qs.next(t)
	cancel()
	if r := waitQuery(t, res); page.ReasonOf(r.err) != page.ReasonCancelled || !strings.Contains(r.err.Error(), "inspect query Slots.listSubTree was cancelled") {
		t.Fatalf("cancel: %v", r.err)
	}

	// The only page asked goes away: the query settles at once, not at its deadline.
	e.reg.opts.QueryTimeout = time.Minute
	res = e.ask(as("s1"), "Slots", "listSubTree", "")
	qs.next(t)
	p.gone()
	if r := waitQuery(t, res); page.ReasonOf(r.err) != page.ReasonProviderError || !strings.Contains(r.err.Error(), "every panel page that publishes it closed before answering") {
		t.Fatalf("page gone: %v", r.err)
	}
	if got := qs.takeResolved(); len(got) != 3 {
		t.Errorf("resolved = %v, want one per query", got)
	}
}

func TestClientQueryDispose(t *testing.T) {
	e := newEnv(t, &Options{QueryTimeout: time.Minute})
	qs := e.watchQueries()
	e.connect(manifest("Slots", "listSubTree"))
	res := e.ask(as("s1"), "Slots", "listSubTree", "")
	qs.next(t)
	e.reg.Close()
	if r := waitQuery(t, res); page.ReasonOf(r.err) != page.ReasonClosed {
		t.Fatalf("a query pending at Dispose: %v", r.err)
	}
	id := e.reg.ConnectPage(context.Background())
	if err := e.reg.SyncManifest(SyncManifestArgs{Page: id, Providers: []Manifest{manifest("Slots", "x")}}); page.ReasonOf(err) != page.ReasonClosed {
		t.Fatalf("publish after Dispose: %v", err)
	}
}

// Pages answering, failing and leaving while queries are asked and cancelled: every query
// returns, the first valid answer wins, and nothing is left pending.
func TestClientQueryStorm(t *testing.T) {
	e := newEnv(t, &Options{QueryTimeout: time.Second})
	var pages []*testPage
	for range 4 {
		pages = append(pages, e.connect(manifest("Slots", "listSubTree")))
	}
	var answering sync.WaitGroup
	defer answering.Wait()
	e.root.Plugin(&kit.Plugin{Name: "answering-pages", Apply: func(c *kit.Context) error {
		_, err := Query.On(c, func(ev QueryEvent) {
			for i, p := range pages {
				answering.Go(func() {
					if i%2 == 0 {
						p.answer(ev, failAnswer("provider-error", "busy"))
					} else {
						p.answer(ev, okAnswer(fmt.Sprintf(`{"ok":%d}`, i)))
					}
				})
			}
		})
		return err
	}})
	n := 64
	if testing.Short() {
		n = 16
	}
	var wg sync.WaitGroup
	var answered atomic.Int32
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(as("s1"))
			defer cancel()
			if i%4 == 0 {
				cancel()
			}
			out, err := e.inspectQuery(ctx, dynamic.InspectQueryInput{Platform: dynamic.InspectClient, Provider: "Slots", Method: "listSubTree"})
			if err == nil && string(out.Data) != `{"ok":1}` && string(out.Data) != `{"ok":3}` {
				t.Errorf("data %s is no page's valid answer", out.Data)
			}
			if err == nil {
				answered.Add(1)
			}
			if err != nil && page.ReasonOf(err) != page.ReasonCancelled {
				t.Errorf("query failed: %v", err)
			}
		}()
	}
	wg.Wait()
	if answered.Load() == 0 {
		t.Error("no query got an answer")
	}
	e.reg.mu.Lock()
	left := len(e.reg.queries)
	e.reg.mu.Unlock()
	if left != 0 {
		t.Errorf("%d queries left pending", left)
	}
}

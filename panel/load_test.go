package panel

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

var loadFor = flag.Duration("load", 0, "run TestLoadLong for this long (the issue's figure: -load 30s); 0 skips it")

// The load test: 10 pages connect and disconnect while the model defines, runs, stops
// and removes Plugins in a loop. Three pages are real Chromium tabs when a browser is
// there (and not -short): each drops its connection (its EventSource resumes with
// Last-Event-ID) and reloads (a new page starts fresh) in turn. The others are Go
// clients speaking the wire of the package doc; every fourth of their connections is a
// new page without Last-Event-ID. Afterwards every page must show the runner's
// inventory, have been sent every event (gapless ids per page), and every stream must
// end when the handler closes, with no goroutine left.

// TestLoadShort is the variant CI runs: 3 s.
func TestLoadShort(t *testing.T) { loadTest(t, 3*time.Second) }

// TestLoadLong runs for -load (go test ./panel -run TestLoadLong -load 30s -v).
func TestLoadLong(t *testing.T) {
	switch {
	case *loadFor == 0:
		t.Skip("the long load test runs with -load 30s")
	case testing.Short():
		t.Skip("the long load test is skipped with -short")
	}
	loadTest(t, *loadFor)
}

const loadPages = 10

// churnEvery is how often one tab drops its stream or reloads: a tab's turn comes every
// 3.6 s, well after its EventSource has retried (0.5 s, the stream's retry field), so a
// dropped stream resumes before the same tab reloads.
const churnEvery = 1200 * time.Millisecond

func loadTest(t *testing.T, d time.Duration) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) }) // first registered, so it runs after every other cleanup
	var bctx context.Context
	if !testing.Short() && (findBrowser() != "" || os.Getenv("CI") == "true") {
		bctx = longBrowser(t)
	}
	e := newEnv(t, nil)

	type tab struct {
		ctx context.Context
		srv *httptest.Server
		ids *idLog
	}
	var tabs []tab
	if bctx != nil {
		for i := range 3 {
			srv := e.tabServer()
			tabs = append(tabs, tab{ctx: e.openTab(bctx, srv), srv: srv, ids: &idLog{page: fmt.Sprintf("tab %d", i)}})
		}
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	pages := make([]*goPage, loadPages-len(tabs))
	for i := range pages {
		c, err := NewClient(e.srv.URL, e.h.Token(), &ClientOptions{HTTPClient: &http.Client{Transport: tr}})
		if err != nil {
			t.Fatal(err)
		}
		pages[i] = &goPage{url: e.srv.URL, token: e.h.Token(), client: c, ids: idLog{page: fmt.Sprintf("go page %d", i)}}
	}
	t.Logf("%d real tabs, %d Go clients, the model loops for %v", len(tabs), len(pages), d)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, len(pages))
	for i, p := range pages {
		wg.Go(func() { errs[i] = p.churn(stop, rand.New(rand.NewPCG(uint64(i), 1))) })
	}

	// The model, on this goroutine; every 1.2 s one tab drops its stream or reloads.
	m := &model{e: e}
	end := time.Now().Add(d)
	nextChurn := time.Now().Add(churnEvery)
	for c := 0; time.Now().Before(end); {
		m.step()
		if len(tabs) > 0 && time.Now().After(nextChurn) {
			tb := tabs[c%len(tabs)]
			if c/len(tabs)%2 == 0 {
				tb.srv.CloseClientConnections()
			} else {
				feedTab(t, tb.ctx, tb.ids)
				if err := chromedp.Do(tb.ctx, chromedp.Reload()); err != nil {
					t.Fatalf("reloading %s: %v", tb.ids.page, err)
				}
			}
			c++
			nextChurn = time.Now().Add(churnEvery)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("go page %d: %v", i, err)
		}
	}
	final := e.quiet()
	want := e.expectedRows()
	t.Logf("the model: %d defines, %d runs, %d stops, %d removes; %d events; at the end %d Plugins, %d running",
		m.defines, m.runs, m.stops, m.removes, final, len(want), len(m.live))

	inv, err := e.r.Inventory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wantInv, _ := json.Marshal(inv)
	for _, p := range pages {
		if err := p.settle(final); err != nil {
			t.Fatalf("%s: %v", p.ids.page, err)
		}
		if p.ids.resumed == 0 {
			t.Errorf("%s never resumed (%d fresh starts): the gap check saw no Last-Event-ID honoured", p.ids.page, p.ids.fresh)
		}
		if got, _ := json.Marshal(p.inv); string(got) != string(wantInv) {
			t.Errorf("%s: its inventory did not converge:\n got %s\nwant %s", p.ids.page, got, wantInv)
		}
	}
	for _, tb := range tabs {
		settleTab(t, tb.ctx, tb.ids, final, want)
	}
	logs := make([]*idLog, 0, loadPages)
	for _, p := range pages {
		logs = append(logs, &p.ids)
	}
	for _, tb := range tabs {
		logs = append(logs, tb.ids)
	}
	for _, l := range logs {
		for _, g := range l.gaps {
			t.Error(g)
		}
		if l.last != final {
			t.Errorf("%s: its last event is %d, the runner's %d", l.page, l.last, final)
		}
		t.Logf("%s: %d events in order, %d fresh starts, %d resumes", l.page, l.events, l.fresh, l.resumed)
	}

	// Every stream ends when the handler shuts down.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.h.Close(ctx); err != nil {
		t.Fatalf("Close with %d pages connected: %v", loadPages, err)
	}
	for _, p := range pages {
		if !p.open.ended() {
			t.Errorf("%s: its stream is still open after Close", p.ids.page)
		}
		p.hangUp(p.open)
	}
	e.h.hub.mu.Lock()
	open := e.h.hub.streams
	e.h.hub.mu.Unlock()
	if open != 0 {
		t.Errorf("%d streams counted open after Close", open)
	}
}

// A model defines a Plugin each step (every third with a client half, which waits for
// approval and is stopped at once), runs it, keeps at most four running and at most
// eight stopped, and removes the oldest.
type model struct {
	e                             *env
	live, idle                    []string
	defines, runs, stops, removes int
	n                             int
}

func (m *model) step() {
	e := m.e
	client := ""
	if m.n%3 == 2 {
		client = clockClient
	}
	m.n++
	d := e.define(clockHost, client)
	m.defines++
	e.run(d)
	m.runs++
	m.live = append(m.live, d.PluginID)
	if client != "" || len(m.live) > 4 {
		id := m.live[len(m.live)-1]
		if client == "" {
			id = m.live[0]
		}
		if _, err := e.r.Stop(as("s1"), dynamic.StopInput{PluginID: id}); err != nil {
			e.t.Fatalf("Stop %s: %v", id, err)
		}
		m.stops++
		m.live = deleteID(m.live, id)
		m.idle = append(m.idle, id)
	}
	if len(m.idle) > 8 {
		if _, err := e.r.Undefine(as("s1"), dynamic.UndefineInput{PluginID: m.idle[0]}); err != nil {
			e.t.Fatalf("Undefine %s: %v", m.idle[0], err)
		}
		m.removes++
		m.idle = m.idle[1:]
	}
}

func deleteID(ids []string, id string) []string {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// feedTab hands what the tab's current document was sent to its id log.
func feedTab(t *testing.T, tab context.Context, l *idLog) {
	t.Helper()
	streams, err := tabEvents(tab)
	if err != nil {
		t.Fatalf("%s: reading its events: %v", l.page, err)
	}
	for _, evs := range streams {
		for _, ev := range evs {
			l.see(ev)
		}
	}
}

// settleTab waits until the tab has been sent the last event and shows want, then hands
// its events to l.
func settleTab(t *testing.T, tab context.Context, l *idLog, final uint64, want map[string]string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		streams, err := tabEvents(tab)
		if err != nil {
			t.Fatalf("%s: reading its events: %v", l.page, err)
		}
		var last uint64
		if n := len(streams); n > 0 {
			for _, ev := range streams[n-1] {
				if s, err := seqOf(ev.id); ev.id != "" && err == nil {
					last = s
				}
			}
		}
		got, err := chromedp.Run(tab, chromedp.Evaluate[map[string]string](shownRows))
		diff := cmp.Diff(want, got)
		if err == nil && last == final && diff == "" {
			feedTab(t, tab, l)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not converge in 15 s: its last event is %d of %d (err %v); its cards (-want +got):\n%s", l.page, last, final, err, diff)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A goPage is a page written in Go: it speaks the wire of the package doc.
type goPage struct {
	url, token string
	client     *Client
	ids        idLog
	last       string                // the last id it was sent
	inv        []runner.InventoryRow // its last inventory read
	open       *sse                  // the stream settle leaves open
}

// churn connects, reads for 100–400 ms, hangs up and waits 20–150 ms, until stop.
// Every fourth connection is a new page (no Last-Event-ID).
func (p *goPage) churn(stop <-chan struct{}, rnd *rand.Rand) error {
	for i := 0; ; i++ {
		resume := p.last
		if i%4 == 3 {
			resume = ""
		}
		s, err := p.connect(resume)
		if err != nil {
			return err
		}
		hold := time.After(time.Duration(100+rnd.IntN(300)) * time.Millisecond)
	read:
		for {
			select {
			case ev, ok := <-s.evs:
				if !ok {
					return fmt.Errorf("the stream ended while the page read it")
				}
				p.see(ev)
			case <-hold:
				break read
			case <-stop:
				p.hangUp(s)
				return nil
			}
		}
		p.hangUp(s)
		select {
		case <-time.After(time.Duration(20+rnd.IntN(130)) * time.Millisecond):
		case <-stop:
			return nil
		}
	}
}

// settle resumes once more, reads up to the event at final, reads the inventory and
// leaves the stream open.
func (p *goPage) settle(final uint64) error {
	s, err := p.connect(p.last)
	if err != nil {
		return err
	}
	p.open = s
	timeout := time.After(10 * time.Second)
	for p.ids.last < final {
		select {
		case ev, ok := <-s.evs:
			if !ok {
				return fmt.Errorf("the stream ended before event %d", final)
			}
			p.see(ev)
		case <-timeout:
			return fmt.Errorf("reached event %d of %d in 10 s", p.ids.last, final)
		}
	}
	return p.readInventory()
}

func (p *goPage) see(ev sseEvent) {
	p.ids.see(ev)
	if ev.id != "" {
		p.last = ev.id
	}
	if ev.name == "cordis/connected" || ev.name == "cordis/reset" {
		p.inv = nil // a page resets its inventory on a fresh start
	}
}

func (p *goPage) connect(last string) (*sse, error) {
	ctx, cancel := context.WithCancel(context.Background())
	es, err := p.client.Events(ctx, last)
	if err != nil {
		cancel()
		return nil, err
	}
	return newSSE(ctx, cancel, nil, es), nil // ends when the stream is closed: hangUp waits for it
}

// hangUp closes the stream and waits for its reader.
func (p *goPage) hangUp(s *sse) {
	s.close()
}

func (p *goPage) readInventory() error {
	inv, err := p.client.Inventory(context.Background())
	if err != nil {
		return err
	}
	if inv.Truncated {
		// Every Plugin must be listed for the page to converge: the load stays under the bound.
		return fmt.Errorf("inventory: truncated (%d of %d Plugins omitted)", inv.Omitted, inv.Plugins)
	}
	p.inv = inv.Rows
	return nil
}

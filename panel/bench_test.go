package panel

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The panel's benchmarks drive headless Chromium. Each measures its figure and its floor
// side by side in one run, one iteration a round (alternating which side goes first),
// and reports both medians and their ratio as metrics (the figure, its floor and their ratio; ns/op is
// the time of a round and says nothing by itself) —
//
//	go test ./panel -run '^$' -bench . -benchtime 10x
//
// They skip without a browser, as the browser tests do. `go test ./...` compiles them
// but runs none; -benchtime 1x runs each once.

// report sets the benchmark's metrics (metric-unit, metric-floor-unit, metric-ratio) and
// logs the row of docs/PERFORMANCE.md.
func report(b *testing.B, metric, figure string, value, floor float64, unit, floorName string) {
	b.Helper()
	b.ReportMetric(value, metric+"-"+unit)
	b.ReportMetric(floor, metric+"-floor-"+unit)
	b.ReportMetric(value/floor, metric+"-ratio")
	b.Logf("ROW | %s | %.3f %s | %s %.3f %s | %.2f×", figure, value, unit, floorName, floor, unit, value/floor)
}

const echoHost = `harness.handle('echo', (args) => args);
return { name: 'echo', apply(ctx) {} }`

// roundTripClient times n host.call round trips in its frame when the benchmark asks.
const roundTripClient = `globalThis.__roundTrips = async (n) => {
  const ms = [];
  for (let i = 0; i < n; i++) { const t0 = performance.now(); await host.call('echo', { i }); ms.push(performance.now() - t0); }
  return ms;
};
return (ctx) => { ctx.slots.register({ name: 'cordis.card', component: () => React.createElement('p', { id: 'ready' }, 'ready to time host.call') }); };`

// floorFetches times n bare fetches from the panel page to POST /floor: the same origin,
// the same cookie, a JSON body of the shape invoke gets.
const floorFetches = `(async (n) => {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch('/floor', { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ pluginId: 'echo-1', pluginRunId: 'run-1', capability: 'x'.repeat(43), method: 'echo', args: { i } }) });
    await res.json();
    ms.push(performance.now() - t0);
  }
  return ms;
})(%d)`

// floorHandler is a bare net/http JSON handler: decode the call, answer its args.
func floorHandler(w http.ResponseWriter, req *http.Request) {
	var in struct {
		PluginID, PluginRunID, Capability, Method string
		Args                                      json.RawMessage
	}
	if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "value": in.Args})
}

// withFloor serves POST /floor beside the panel on e's server (which it replaces).
func (e *env) withFloor() {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /floor", floorHandler)
	mux.Handle("/", e.h)
	old := e.srv
	e.srv = httptest.NewServer(mux) // the env's cleanup closes it
	old.Close()
}

// BenchmarkHostCallRoundTrip: a client half's host.call (frame → page → POST
// rpc/invoke → the host half's handler → back) against a bare fetch from the page to a
// bare JSON handler on the same server; each iteration is a round of 50 of each,
// alternating which goes first, after a warm-up round.
func BenchmarkHostCallRoundTrip(b *testing.B) {
	ctx := browser(b)
	e := newEnv(b, nil)
	e.withFloor()
	e.open(ctx)
	d := e.define(echoHost, roundTripClient)
	e.run(d)
	press(b, ctx, d.PluginID, "Approve this version")
	rowIs(b, ctx, d.PluginID, "running")
	_, f := frameText(b, ctx, "#ready", "ready")
	if f.opts != nil {
		b.Fatal("the client-half frame runs in the page's process here, so the benchmark cannot evaluate in it; run Chromium with site isolation (the default)")
	}
	await := func(c context.Context, js string) []float64 {
		b.Helper()
		ms, err := chromedp.Run(c, chromedp.Evaluate[[]float64](js, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		return ms
	}
	const n = 50
	calls := func() []float64 { return await(f.ctx, fmt.Sprintf(`__roundTrips(%d)`, n)) }
	floor := func() []float64 { return await(ctx, fmt.Sprintf(floorFetches, n)) }
	calls()
	floor()
	var callMs, fetchMs, ratios []float64
	for r := 0; b.Loop(); r++ {
		var call, bare []float64
		if r%2 == 0 {
			call, bare = calls(), floor()
		} else {
			bare, call = floor(), calls()
		}
		callMs, fetchMs = append(callMs, call...), append(fetchMs, bare...)
		ratios = append(ratios, p50(call)/p50(bare))
	}
	report(b, "call", "host.call round trip p50", p50(callMs), p50(fetchMs), "ms", "bare fetch p50")
	b.Logf("per-round ratios: median %.2f×, %.2f–%.2f×; %d round trips per side", p50(ratios), slices.Min(ratios), slices.Max(ratios), len(callMs))
}

// seenRows makes the page stamp the first moment each card is in its DOM
// (performance.timeOrigin + now, in ms since the epoch).
const seenRows = `(() => {
  window.__seen = {};
  const mark = () => { for (const a of document.querySelectorAll('article.row')) if (!(a.dataset.plugin in window.__seen)) window.__seen[a.dataset.plugin] = performance.timeOrigin + performance.now(); };
  mark();
  new MutationObserver(mark).observe(document.body, { childList: true, subtree: true });
  return true;
})()`

// BenchmarkEventFanOut: from the model's Define to its card in every open page of a
// panel with 50 pages open, against a panel (another runner) with 1; each tab on its own
// port (Chromium's six connections per host would hold the rest of the event streams
// back). Each iteration defines once on each, alternating which goes first.
func BenchmarkEventFanOut(b *testing.B) {
	ctx := longBrowser(b)
	one, fifty := newFanOut(b, ctx, 1), newFanOut(b, ctx, 50)
	var oneMs, fiftyMs, fiftyMid []float64
	for r := 0; b.Loop(); r++ {
		sides := []*fanOut{one, fifty}
		if r%2 == 1 {
			slices.Reverse(sides)
		}
		for _, s := range sides {
			last, mid := s.define()
			if s == one {
				oneMs = append(oneMs, last)
			} else {
				fiftyMs, fiftyMid = append(fiftyMs, last), append(fiftyMid, mid)
			}
		}
	}
	report(b, "fanout", "define → card in all 50 pages (median)", p50(fiftyMs), p50(oneMs), "ms", "1 page")
	b.Logf("1 page: %.1f ms; 50 pages: %.1f ms (the median page: %.1f ms)", oneMs, fiftyMs, fiftyMid)
}

// A fanOut is a panel open in n tabs, each stamping when a card first shows.
type fanOut struct {
	e    *env
	tabs []context.Context
}

func newFanOut(b *testing.B, ctx context.Context, n int) *fanOut {
	b.Helper()
	s := &fanOut{e: newEnv(b, nil)}
	for range n {
		tab := s.e.openTab(ctx, s.e.tabServer())
		if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](seenRows)); err != nil {
			b.Fatal(err)
		}
		s.tabs = append(s.tabs, tab)
	}
	return s
}

// define defines a Plugin and returns when the last page and the median page showed its
// card (ms after Define began).
func (s *fanOut) define() (last, mid float64) {
	t := s.e.t
	t.Helper()
	t0 := float64(time.Now().UnixMicro()) / 1000
	d := s.e.define(clockHost, "")
	var seen []float64
	for _, tab := range s.tabs {
		deadline := time.Now().Add(20 * time.Second)
		for {
			at, err := chromedp.Run(tab, chromedp.Evaluate[float64](fmt.Sprintf(`window.__seen[%q] || 0`, d.PluginID)))
			if err != nil {
				t.Fatal(err)
			}
			if at > 0 {
				seen = append(seen, at-t0)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not show in a page within 20 s", d.PluginID)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return slices.Max(seen), p50(seen)
}

// BenchmarkEventFanOutWire is the handler's share of the fan-out: from Define to its
// cordis/definition-changed read by all of 50 Go clients speaking the wire, against a
// runner with 1; each iteration defines once on each, alternating which goes first.
func BenchmarkEventFanOutWire(b *testing.B) {
	one, fifty := newWireClients(b, 1), newWireClients(b, 50)
	var oneMs, fiftyMs []float64
	for r := 0; b.Loop(); r++ {
		if r%2 == 0 {
			oneMs, fiftyMs = append(oneMs, one.define()), append(fiftyMs, fifty.define())
		} else {
			fiftyMs, oneMs = append(fiftyMs, fifty.define()), append(oneMs, one.define())
		}
	}
	report(b, "wire", "define → event at all 50 wire clients (median)", p50(fiftyMs), p50(oneMs), "ms", "1 client")
}

// wireClients are Go pages connected to one runner's panel.
type wireClients struct {
	e     *env
	pages []*goPage
}

func newWireClients(b *testing.B, n int) *wireClients {
	b.Helper()
	w := &wireClients{e: newEnv(b, nil)}
	tr := &http.Transport{}
	b.Cleanup(tr.CloseIdleConnections)
	for range n {
		c, err := NewClient(w.e.srv.URL, w.e.h.Token(), &ClientOptions{HTTPClient: &http.Client{Transport: tr}})
		if err != nil {
			b.Fatal(err)
		}
		p := &goPage{url: w.e.srv.URL, token: w.e.h.Token(), client: c}
		s, err := p.connect("")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.hangUp(s) })
		if ev := <-s.evs; ev.name != "cordis/connected" {
			b.Fatalf("the stream began with %s", ev.name)
		}
		p.open = s
		w.pages = append(w.pages, p)
	}
	return w
}

// define defines a Plugin and returns the ms until its cordis/definition-changed was read
// by the last client.
func (w *wireClients) define() float64 {
	t := w.e.t
	t.Helper()
	arrived := make([]time.Time, len(w.pages))
	t0 := time.Now()
	d := w.e.define(clockHost, "")
	want := fmt.Sprintf(`"pluginId":%q`, d.PluginID)
	var wg sync.WaitGroup
	for i, p := range w.pages {
		wg.Go(func() {
			timeout := time.After(10 * time.Second)
			for {
				select {
				case ev := <-p.open.evs:
					if ev.name == "cordis/definition-changed" && strings.Contains(ev.data, want) {
						arrived[i] = time.Now()
						return
					}
				case <-timeout:
					return
				}
			}
		})
	}
	wg.Wait()
	var last time.Duration
	for _, at := range arrived {
		if at.IsZero() {
			t.Fatalf("%s's definition-changed did not reach every client within 10 s", d.PluginID)
		}
		last = max(last, at.Sub(t0))
	}
	return float64(last.Microseconds()) / 1000
}

// firstRender records, in every document, when the page first shows what the model
// defined (the empty panel's "Nothing defined yet" or its cards): window.__firstRender
// is {ms since navigation, cards}.
const firstRender = `(() => {
  const seen = () => document.querySelector('.empty h2') || document.querySelector('article.row');
  const mo = new MutationObserver(() => {
    if (window.__firstRender || !seen()) return;
    window.__firstRender = { ms: performance.now(), cards: document.querySelectorAll('article.row').length };
    mo.disconnect();
  });
  mo.observe(document, { childList: true, subtree: true });
})()`

// timeClick clicks the button labelled label in pluginID's card and resolves with the
// ms until done (a selector) is in the DOM.
const timeClick = `new Promise((resolve, reject) => {
  const b = [...document.querySelectorAll('#row-%[1]s button')].find((b) => b.textContent === %[2]q);
  if (!b) return reject(new Error('no button %[2]s in the card of %[1]s'));
  const t0 = performance.now();
  const check = () => { if (document.querySelector(%[3]q)) { mo.disconnect(); resolve(performance.now() - t0); return true; } };
  const mo = new MutationObserver(check);
  mo.observe(document.body, { childList: true, subtree: true, attributes: true });
  b.click();
  check();
})`

// BenchmarkThousandDefinitions: the panel with 1,000 Plugins against the empty panel
// (another runner). Each iteration, per side and alternating which goes first: a reload
// (its first render), then a new Plugin (an approved Package is not asked about again)
// whose "Remove" and "Approve this version" are clicked, so the sides have 1–N and 1,001–1,000+N
// cards. One warm-up iteration comes first.
func BenchmarkThousandDefinitions(b *testing.B) {
	ctx := longBrowser(b)
	sides := []*thousandSide{newThousandSide(b, ctx, 0), newThousandSide(b, ctx, 1000)}
	for _, s := range sides {
		s.reload()
		s.clicks()
	}
	empty, full := sides[0], sides[1]
	var load, remove, ok [2][]float64 // [empty, full]
	for r := 0; b.Loop(); r++ {
		order := []int{0, 1}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			load[i] = append(load[i], sides[i].reload())
			rm, approve := sides[i].clicks()
			remove[i], ok[i] = append(remove[i], rm), append(ok[i], approve)
		}
	}
	report(b, "render", "first render of 1,000 cards (median)", p50(load[1]), p50(load[0]), "ms", "empty panel")
	report(b, "remove", "click Remove → confirm, 1,001+ cards", p50(remove[1]), p50(remove[0]), "ms", "1+ cards")
	report(b, "approve", "click Approve this version → running, 1,001+ cards", p50(ok[1]), p50(ok[0]), "ms", "1+ cards")
	b.Logf("loads: empty %.1f, 1,000 %.1f; Remove: %.1f / %.1f; Approve this version: %.1f / %.1f; %d and %d cards at the end",
		load[0], load[1], remove[0], remove[1], ok[0], ok[1], empty.cards, full.cards)
}

// A thousandSide is a runner with cards Plugins and its panel in a tab of its own that
// records its first render (firstRender).
type thousandSide struct {
	e     *env
	tab   context.Context
	cards int
}

func newThousandSide(b *testing.B, ctx context.Context, n int) *thousandSide {
	b.Helper()
	e := newEnv(b, nil)
	for range n {
		e.define(clockHost, "")
	}
	tab, cancel := chromedp.NewContext(ctx)
	b.Cleanup(cancel)
	if err := chromedp.Do(tab, onNewDocument(firstRender), chromedp.Navigate(e.h.URL(e.srv.URL)+"#session=s1")); err != nil {
		b.Fatal(err)
	}
	waitJS(b, tab, `document.querySelector('.conn.c-live') !== null`)
	return &thousandSide{e: e, tab: tab, cards: n}
}

// reload reloads the panel and returns the ms from navigation to its first render, which
// must show every card at once.
func (s *thousandSide) reload() float64 {
	t := s.e.t
	t.Helper()
	if err := chromedp.Do(s.tab, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, s.tab, `window.__firstRender`)
	r, err := chromedp.Run(s.tab, chromedp.Evaluate[struct {
		Ms    float64 `json:"ms"`
		Cards int     `json:"cards"`
	}](`window.__firstRender`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Cards != s.cards {
		t.Fatalf("the first render showed %d cards, want all %d at once", r.Cards, s.cards)
	}
	return r.Ms
}

// clicks defines a new Plugin with a client half and times, in the page, "Remove" until
// its confirmation shows ("Keep" then keeps it) and "Approve this version" of its run until it
// reads running; then it stops the run.
func (s *thousandSide) clicks() (remove, approve float64) {
	t := s.e.t
	t.Helper()
	d := s.e.define(clockHost, versionClient("1"))
	s.cards++
	id := d.PluginID
	click := func(label, done string) float64 {
		t.Helper()
		ms, err := chromedp.Run(s.tab, chromedp.Evaluate[float64](fmt.Sprintf(timeClick, id, label, done), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		return ms
	}
	rowIs(t, s.tab, id, "idle")
	remove = click("Remove", "#row-"+id+" .confirm")
	press(t, s.tab, id, "Keep")
	s.e.run(d)
	rowIs(t, s.tab, id, "awaiting-approval")
	approve = click("Approve this version", fmt.Sprintf("#row-%s[data-status=running]", id))
	if _, err := s.e.r.Stop(as("s1"), dynamic.StopInput{PluginID: id}); err != nil {
		t.Fatal(err)
	}
	rowIs(t, s.tab, id, "idle")
	return remove, approve
}

package panel

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cordiskit/cordiskit/runner"
)

// The panel's benchmarks drive headless Chromium, so they are tests behind a flag rather
// than Benchmark functions (the browser helpers take a *testing.T): each measures its
// figure and its floor side by side in one run and logs one row per figure —
//
//	go test ./panel -run TestBench -panelbench -v
//
// They report and never assert a time.
var panelBench = flag.Bool("panelbench", false, "run the panel's browser benchmarks (TestBench…) and log their rows")

func benchOnly(t *testing.T) {
	t.Helper()
	if !*panelBench {
		t.Skip("a panel benchmark: run it with -panelbench -v")
	}
}

// benchRow logs one benchmark row: the figure, its floor and their ratio.
func benchRow(t *testing.T, figure string, value, floor float64, unit, floorName string) {
	t.Helper()
	t.Logf("ROW | %s | %.3f %s | %s %.3f %s | %.2f×", figure, value, unit, floorName, floor, unit, value/floor)
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

// TestBenchHostCallRoundTrip: a client half's host.call (frame → page → POST
// rpc/invoke → the host half's handler → back) against a bare fetch from the page to a
// bare JSON handler on the same server; 10 rounds of 50 each, alternating which goes
// first, after a warm-up round.
func TestBenchHostCallRoundTrip(t *testing.T) {
	benchOnly(t)
	ctx := browser(t)
	e := newEnv(t, nil)
	e.withFloor()
	e.open(ctx)
	d := e.define(echoHost, roundTripClient)
	e.run(d)
	press(t, ctx, d.PluginID, "Approve once")
	rowIs(t, ctx, d.PluginID, "running")
	_, f := frameText(t, ctx, "#ready", "ready")
	if f.opts != nil {
		t.Fatal("the client-half frame runs in the page's process here, so the benchmark cannot evaluate in it; run Chromium with site isolation (the default)")
	}
	await := func(c context.Context, js string) []float64 {
		t.Helper()
		ms, err := chromedp.Run(c, chromedp.Evaluate[[]float64](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	const rounds, n = 10, 50
	await(f.ctx, fmt.Sprintf(`__roundTrips(%d)`, n))
	await(ctx, fmt.Sprintf(floorFetches, n))
	var calls, fetches, ratios []float64
	for r := range rounds {
		var c, b []float64
		if r%2 == 0 {
			c = await(f.ctx, fmt.Sprintf(`__roundTrips(%d)`, n))
			b = await(ctx, fmt.Sprintf(floorFetches, n))
		} else {
			b = await(ctx, fmt.Sprintf(floorFetches, n))
			c = await(f.ctx, fmt.Sprintf(`__roundTrips(%d)`, n))
		}
		calls, fetches = append(calls, c...), append(fetches, b...)
		ratios = append(ratios, p50(c)/p50(b))
	}
	benchRow(t, "host.call round trip p50", p50(calls)*1000, p50(fetches)*1000, "µs", "bare fetch p50")
	t.Logf("per-round ratios: median %.2f×, %.2f–%.2f×; %d round trips per side", p50(ratios), slices.Min(ratios), slices.Max(ratios), len(calls))
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

// TestBenchEventFanOut: from the model's Define to its card in every open page, with 1
// page and with 50 (each tab on its own port: Chromium's six connections per host would
// hold the rest of the event streams back), 5 defines each.
func TestBenchEventFanOut(t *testing.T) {
	benchOnly(t)
	ctx := longBrowser(t)
	e := newEnv(t, nil)
	var tabs []context.Context
	open := func(n int) {
		for len(tabs) < n {
			tab := e.openTab(ctx, e.tabServer())
			if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](seenRows)); err != nil {
				t.Fatal(err)
			}
			tabs = append(tabs, tab)
		}
	}
	// fanOut returns, per define, when the last page showed the card and when the median
	// page did (ms after Define began).
	fanOut := func() (last, mid []float64) {
		for range 5 {
			t0 := float64(time.Now().UnixMicro()) / 1000
			d := e.define(clockHost, "")
			var seen []float64
			for _, tab := range tabs {
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
			last, mid = append(last, slices.Max(seen)), append(mid, p50(seen))
		}
		return last, mid
	}
	wireOne, wireFifty := e.wireFanOut(1), e.wireFanOut(50) // before the tabs: 100 streams is past MaxStreams
	open(1)
	one, _ := fanOut()
	open(50)
	fifty, fiftyMid := fanOut()
	benchRow(t, "define → card in all 50 pages (median of 5)", p50(fifty), p50(one), "ms", "1 page")
	benchRow(t, "define → event at all 50 wire clients (median of 5)", p50(wireFifty), p50(wireOne), "ms", "1 client")
	t.Logf("1 page: %.1f ms; 50 pages: %.1f ms (the median page: %.1f ms); 1 wire client: %.2f ms; 50: %.2f ms", one, fifty, fiftyMid, wireOne, wireFifty)
}

// wireFanOut is the handler's share of the fan-out: from Define to its
// cordis/definition-changed read by each of n Go clients speaking the wire, 5 times.
func (e *env) wireFanOut(n int) []float64 {
	e.t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	pages := make([]*goPage, n)
	for i := range pages {
		p := &goPage{url: e.srv.URL, token: e.h.Token(), client: &http.Client{Transport: tr}}
		s, err := p.connect("")
		if err != nil {
			e.t.Fatal(err)
		}
		defer p.hangUp(s)
		if ev := <-s.evs; ev.name != "cordis/connected" {
			e.t.Fatalf("the stream began with %s", ev.name)
		}
		p.open, pages[i] = s, p
	}
	var ms []float64
	for range 5 {
		arrived := make([]time.Time, n)
		t0 := time.Now()
		d := e.define(clockHost, "")
		want := fmt.Sprintf(`"pluginId":%q`, d.PluginID)
		var wg sync.WaitGroup
		for i, p := range pages {
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
				e.t.Fatalf("%s's definition-changed did not reach every client within 10 s", d.PluginID)
			}
			last = max(last, at.Sub(t0))
		}
		ms = append(ms, float64(last.Microseconds())/1000)
	}
	return ms
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

// TestBenchThousandDefinitions: the panel with 1,000 Plugins against the empty panel
// (for the clicks, each gets one more Plugin per click: the one clicked), 5 loads and 5 clicks of
// each kind per side, alternating which side goes first.
func TestBenchThousandDefinitions(t *testing.T) {
	benchOnly(t)
	ctx := longBrowser(t)
	type side struct {
		e                *env
		tab              context.Context
		cards            int
		load, ok, remove []float64
	}
	var sides [2]*side
	for i, n := range []int{0, 1000} {
		e := newEnv(t, nil)
		for range n {
			e.define(clockHost, "")
		}
		tab, cancel := chromedp.NewContext(ctx)
		t.Cleanup(cancel)
		if err := chromedp.Do(tab, onNewDocument(firstRender), chromedp.Navigate(e.h.URL(e.srv.URL)+"#session=s1")); err != nil {
			t.Fatal(err)
		}
		waitJS(t, tab, `document.querySelector('.conn.c-live') !== null`)
		sides[i] = &side{e: e, tab: tab, cards: n}
	}
	order := func(rep int) []*side {
		if rep%2 == 0 {
			return sides[:]
		}
		return []*side{sides[1], sides[0]}
	}
	type rendered struct {
		Ms    float64 `json:"ms"`
		Cards int     `json:"cards"`
	}
	for rep := range 6 {
		for _, s := range order(rep) {
			if err := chromedp.Do(s.tab, chromedp.Reload()); err != nil {
				t.Fatal(err)
			}
			waitJS(t, s.tab, `window.__firstRender`)
			r, err := chromedp.Run(s.tab, chromedp.Evaluate[rendered](`window.__firstRender`))
			if err != nil {
				t.Fatal(err)
			}
			if r.Cards != s.cards {
				t.Fatalf("the first render showed %d cards, want all %d at once", r.Cards, s.cards)
			}
			if rep > 0 { // the first load warms up
				s.load = append(s.load, r.Ms)
			}
		}
	}
	// Each click goes to a new Plugin: an approved Package is not asked about again.
	clicked := make(map[*side]runner.DefineOutput)
	click := func(s *side, label, done string) float64 {
		t.Helper()
		ms, err := chromedp.Run(s.tab, chromedp.Evaluate[float64](fmt.Sprintf(timeClick, clicked[s].PluginID, label, done), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		return ms
	}
	for rep := range 6 {
		for _, s := range order(rep) {
			clicked[s] = s.e.define(clockHost, versionClient("1"))
			id := clicked[s].PluginID
			rowIs(t, s.tab, id, "idle")
			remove := click(s, "Remove", "#row-"+id+" .confirm")
			press(t, s.tab, id, "Keep")
			s.e.run(clicked[s])
			rowIs(t, s.tab, id, "awaiting-approval")
			ok := click(s, "Approve once", fmt.Sprintf("#row-%s[data-status=running]", id))
			if _, err := s.e.r.Stop(as("s1"), runner.PluginInput{PluginID: id}); err != nil {
				t.Fatal(err)
			}
			rowIs(t, s.tab, id, "idle")
			if rep > 0 {
				s.remove, s.ok = append(s.remove, remove), append(s.ok, ok)
			}
		}
	}
	empty, full := sides[0], sides[1]
	benchRow(t, "first render of 1,000 cards (median of 5)", p50(full.load), p50(empty.load), "ms", "empty panel")
	benchRow(t, "click Remove → confirm, 1,001–1,006 cards", p50(full.remove), p50(empty.remove), "ms", "1–6 cards")
	benchRow(t, "click Approve once → running, 1,001–1,006 cards", p50(full.ok), p50(empty.ok), "ms", "1–6 cards")
	t.Logf("loads: empty %.1f, 1,000 %.1f; Remove: %.1f / %.1f; Approve once: %.1f / %.1f",
		empty.load, full.load, empty.remove, full.remove, empty.ok, full.ok)
}

package panel

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The load test and the benchmarks open many pages at once. Chromium opens at most six
// HTTP/1.1 connections to one host and port, and every page holds one for its event
// stream, so each tab gets a server of its own ([tabServer]) on the same Handler.

// longBrowser is [browser] without its 60 s deadline, for the load test and the
// benchmarks, which outlive it. The browser is started here, on a context cancelled with
// the test, so it still ends with the test; tabs are new targets of it.
func longBrowser(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(browser(t)))
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}

// tabServer serves e's handler on another loopback port. Its cleanup drops the open
// connections first (an event stream never ends by itself) and then closes it.
func (e *env) tabServer() *httptest.Server {
	e.t.Helper()
	srv := httptest.NewServer(e.h)
	e.t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return srv
}

// sseRecorder runs in every document before the panel's script: it wraps EventSource so
// that window.__sse holds, per EventSource, every event the page was given as [name,
// lastEventId, data] (data only for cordis/connected and cordis/reset, whose resumed flag
// the id check needs).
const sseRecorder = `(() => {
  const Native = window.EventSource;
  if (!Native || window.__sse) return;
  window.__sse = [];
  window.EventSource = class extends Native {
    constructor(url, opts) { super(url, opts); this.__log = []; window.__sse.push(this.__log); }
    addEventListener(type, fn, o) {
      return super.addEventListener(type, (ev) => {
        this.__log.push([type, ev.lastEventId, type === 'cordis/connected' || type === 'cordis/reset' ? ev.data : '']);
        return fn.call(this, ev);
      }, o);
    }
  };
})()`

// openTab opens the panel of srv in a new tab of the browser ctx, with the event recorder
// installed, and waits until it is live. The tab closes with the test.
func (e *env) openTab(ctx context.Context, srv *httptest.Server) context.Context {
	e.t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	e.t.Cleanup(cancel)
	if err := chromedp.Do(tab, onNewDocument(sseRecorder), chromedp.Navigate(e.h.URL(srv.URL)+"#session=s1")); err != nil {
		e.t.Fatalf("opening a tab on %s: %v", srv.URL, err)
	}
	waitJS(e.t, tab, `document.querySelector('.conn.c-live') !== null`)
	return tab
}

// onNewDocument runs src in every document the tab loads from now on, before the page's
// own scripts.
func onNewDocument(src string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		return err
	})
}

// tabEvents returns what the recorder saw in the tab's current document, as events with
// the ids the stream sent: an event that carried no id repeats the EventSource's last id,
// so an id equal to the one before it is dropped.
func tabEvents(ctx context.Context) ([][]sseEvent, error) {
	logs, err := chromedp.Run(ctx, chromedp.Evaluate[[][][3]string](`window.__sse || []`))
	if err != nil {
		return nil, err
	}
	out := make([][]sseEvent, 0, len(logs))
	for _, log := range logs {
		evs := make([]sseEvent, 0, len(log))
		prev := ""
		for _, r := range log {
			ev := sseEvent{name: r[0], id: r[1], data: r[2]}
			if ev.id == prev {
				ev.id = ""
			} else {
				prev = ev.id
			}
			evs = append(evs, ev)
		}
		out = append(out, evs)
	}
	return out, nil
}

// An idLog follows the ids one page was sent, over all its connections, and records
// every gap: after a fresh start (cordis/connected with resumed false, or cordis/reset)
// the next id must be the start's plus one, and so on; a resumed connection goes on from
// the Last-Event-ID it sent.
type idLog struct {
	page    string
	started bool
	last    uint64
	fresh   int // fresh starts: the first connection, a reload, a reset
	resumed int
	events  int // events with an id after a start
	gaps    []string
}

// see follows one event.
func (l *idLog) see(ev sseEvent) {
	switch ev.name {
	case "cordis/connected", "cordis/reset":
		var d struct{ Resumed bool }
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil {
			l.gaps = append(l.gaps, fmt.Sprintf("%s: %s data %q: %v", l.page, ev.name, ev.data, err))
			return
		}
		if d.Resumed {
			if !l.started {
				l.gaps = append(l.gaps, l.page+": a stream resumed before any fresh start")
			}
			l.resumed++
			return
		}
		seq, err := seqOf(ev.id)
		if err != nil {
			l.gaps = append(l.gaps, fmt.Sprintf("%s: %s: %v", l.page, ev.name, err))
			return
		}
		l.started, l.last = true, seq
		l.fresh++
		return
	}
	if ev.id == "" {
		return // a pending run request replayed after a fresh start
	}
	seq, err := seqOf(ev.id)
	switch {
	case err != nil:
		l.gaps = append(l.gaps, fmt.Sprintf("%s: %s: %v", l.page, ev.name, err))
	case !l.started:
		l.gaps = append(l.gaps, fmt.Sprintf("%s: %s (id %s) came before cordis/connected", l.page, ev.name, ev.id))
	case seq != l.last+1:
		l.gaps = append(l.gaps, fmt.Sprintf("%s: after id %d came %s with id %d: %d events lost or repeated", l.page, l.last, ev.name, seq, int64(seq)-int64(l.last)-1))
		l.last = seq
	default:
		l.last = seq
		l.events++
	}
}

// seqOf is the position in an id "<epoch>-<n>".
func seqOf(id string) (uint64, error) {
	_, n, ok := strings.Cut(id, "-")
	if !ok {
		return 0, fmt.Errorf("id %q is not <epoch>-<n>", id)
	}
	return strconv.ParseUint(n, 10, 64)
}

// quiet waits until the handler has published nothing new for 300 ms and returns the
// position of its last event.
func (e *env) quiet() uint64 {
	e.t.Helper()
	_, last, _ := e.h.hub.snapshot(operator)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(300 * time.Millisecond)
		_, now, _ := e.h.hub.snapshot(operator)
		if now == last {
			return now
		}
		last = now
	}
	e.t.Fatalf("the runner still emits events 10 s after the model stopped (at %d)", last)
	return 0
}

// expectedRows is what every page must show for the runner's inventory: each Plugin's
// reading, "running" for a live run (the load test's runs are host-only) and "idle"
// otherwise.
func (e *env) expectedRows() map[string]string {
	e.t.Helper()
	rows, err := e.r.Inventory(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	want := make(map[string]string, len(rows))
	for _, r := range rows {
		if a := r.LatestRun; a != nil && !slices.Contains([]dynamic.RunStatus{dynamic.RunRunning, dynamic.RunStopped, dynamic.RunCancelled}, a.Status) {
			e.t.Fatalf("%s ends with a run in state %s; the load loop leaves every run running or stopped", r.PluginID, a.Status)
		}
		want[r.PluginID] = "idle"
		if r.ActiveRun != nil {
			want[r.PluginID] = "running"
		}
	}
	return want
}

// shownRows reads each card of the page and its reading.
const shownRows = `Object.fromEntries([...document.querySelectorAll('article.row')].map((a) => [a.dataset.plugin, a.dataset.status]))`

// p50 is the nearest-rank median of xs.
func p50(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

package panel

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// clientProviders is what cordis_inspect_list shows of the client platform.
func (e *env) clientProviders() []string {
	e.t.Helper()
	out, err := e.r.InspectList(context.Background(), dynamic.InspectListInput{})
	if err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, p := range out.Providers {
		if p.Platform == dynamic.InspectClient {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// queryClient is the model's cordis_inspect_query of a client provider, as s1.
func (e *env) queryClient(provider, method, input string) (json.RawMessage, error) {
	in := dynamic.InspectQueryInput{Platform: dynamic.InspectClient, Provider: provider, Method: method}
	if input != "" {
		in.Input = json.RawMessage(input)
	}
	out, err := e.r.InspectQuery(as("s1"), in)
	return out.Data, err
}

func TestBrowserClientInspectPlane(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	if ids := e.clientProviders(); len(ids) != 0 {
		t.Fatalf("client providers before any page opened: %v", ids)
	}
	e.open(ctx)
	want := []string{"Builtin", "Slots", "Service"}
	waitFor(t, "the page's providers in cordis_inspect_list", func() bool { return slices.Equal(e.clientProviders(), want) })

	// A client half in a card: the Slots provider reports it as the occupant.
	d := e.define(clockHost, clockClient)
	e.run(d)
	press(t, ctx, d.PluginID, "Approve this version")
	rowIs(t, ctx, d.PluginID, "running")
	frameText(t, ctx, "#answer", "Not asked yet.")

	var slots struct {
		RequestedRoot struct {
			Name      string `json:"name"`
			Available bool   `json:"available"`
		} `json:"requestedRoot"`
		Trees []struct {
			Name      string `json:"name"`
			Occupants int    `json:"occupants"`
		} `json:"trees"`
		Selected struct {
			Name      string            `json:"name"`
			Register  string            `json:"register"`
			Occupants []LoadedRun       `json:"occupants"`
			Props     map[string]string `json:"props"`
		} `json:"selected"`
		ReferencedTypes []any `json:"referencedTypes"`
	}
	data, err := e.queryClient("Slots", "listSubTree", `{"root":"cordis.card"}`)
	if err != nil {
		t.Fatalf("Slots.listSubTree: %v", err)
	}
	if err := json.Unmarshal(data, &slots); err != nil {
		t.Fatalf("Slots.listSubTree answered %s: %v", data, err)
	}
	run := LoadedRun{d.PluginID, d.PackageID, ""}
	if rows, err := e.r.Inventory(context.Background()); err == nil && len(rows) == 1 && rows[0].ActiveRun != nil {
		run.PluginRunID = rows[0].ActiveRun.PluginRunID
	}
	if slots.RequestedRoot.Name != "cordis.card" || !slots.RequestedRoot.Available || len(slots.Trees) != 1 || slots.Trees[0].Occupants != 1 ||
		slots.Selected.Name != "cordis.card" || !strings.Contains(slots.Selected.Register, "ctx.slots.register") ||
		!slices.Equal(slots.Selected.Occupants, []LoadedRun{run}) || slots.Selected.Props["pluginRunId"] != "string" || slots.ReferencedTypes == nil {
		t.Fatalf("Slots.listSubTree of cordis.card = %s", data)
	}
	data, err = e.queryClient("Slots", "listSubTree", "")
	if err != nil || !strings.Contains(string(data), `"name":"tool.view.cordis"`) || strings.Contains(string(data), "selected") {
		t.Fatalf("Slots.listSubTree of every slot = %s, %v", data, err)
	}
	data, err = e.queryClient("Builtin", "listBuiltins", "")
	if err != nil || !strings.Contains(string(data), `"name":"React"`) || !strings.Contains(string(data), `"name":"host"`) {
		t.Fatalf("Builtin.listBuiltins = %s, %v", data, err)
	}

	// The only page fails the query: its failure settles it, with the page's reason.
	_, err = e.queryClient("Service", "listService", `{"service":"nope"}`)
	if err == nil || !strings.Contains(err.Error(), `no client Service named "nope"`) || !strings.Contains(err.Error(), "provider-error") {
		t.Fatalf("a query the page fails = %v, want the page's reason", err)
	}

	// A page that goes away takes its providers with it.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the closed page's providers to leave cordis_inspect_list", func() bool { return len(e.clientProviders()) == 0 })
	if _, err := e.queryClient("Slots", "listSubTree", ""); err == nil || !strings.Contains(err.Error(), "not published by any connected panel page") {
		t.Fatalf("a query with no page open = %v", err)
	}
}

// callTool calls tool as the model of s1 would: through the runtime's tools registry,
// where the runner announces the call to the panel.
func (e *env) callTool(name string, args any) json.RawMessage {
	e.t.Helper()
	in, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	out, err := e.tools().Call(as("s1"), name, in)
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	return out
}

// tools is the runtime's tools registry.
func (e *env) tools() *kit.Tools {
	tools, ok := kit.ToolsService.Get(e.root)
	if !ok {
		e.t.Fatal("the runtime has no tools registry")
	}
	return tools
}

// activityText is the activity list as the person reads it, newest first.
func activityText(t *testing.T, ctx context.Context) []string {
	t.Helper()
	lines, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.activity .card .line')].map(l => l.innerText.replace(/\s+/g, ' ').trim())`))
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestBrowserActivityList(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)

	var d dynamic.DefineOutput
	out := e.callTool("cordis_define", map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": "clock"},
		"name": "Clock", "purpose": "Shows the time.", "code": map[string]string{"host": clockHost, "client": clockClient}})
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	e.callTool("cordis_run", map[string]string{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"})
	if _, err := e.tools().Call(as("s1"), "cordis_inspect_list", nil); err != nil { // a tool without a card
		t.Fatal(err)
	}

	// Newest first: the run card waits for the person; the define card reads what the
	// Plugin does now.
	waitJS(t, ctx, `document.querySelectorAll('.activity .card').length === 2`)
	waitJS(t, ctx, `(() => { const c = document.querySelectorAll('.activity .card'); return c[0].dataset.tool === 'cordis_run' && c[0].dataset.reading === 'awaiting-approval' && c[1].dataset.tool === 'cordis_define' && c[1].dataset.state === 'ok' })()`)
	lines := activityText(t, ctx)
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "Asked to run "+d.PluginID+" "+d.PackageID) || !strings.Contains(lines[0], "Needs your approval") ||
		!strings.HasPrefix(lines[1], "Defined Clock "+d.PluginID+" · "+d.PackageID) {
		t.Fatalf("the activity list reads %q", lines)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.activity .card details pre').length`)); n != 2 {
		t.Fatalf("the define card shows %d sources, want the host and client halves", n)
	}

	press(t, ctx, d.PluginID, "Approve this version")
	rowIs(t, ctx, d.PluginID, "running")
	waitJS(t, ctx, `[...document.querySelectorAll('.activity .card')].every(c => c.dataset.reading === 'running')`)
	shoot(t, ctx, "activity")

	// A stop card; then a reload renders the same cards from the handler's list.
	e.callTool("cordis_stop", map[string]string{"pluginId": d.PluginID})
	waitJS(t, ctx, `document.querySelectorAll('.activity .card').length === 3 && document.querySelector('.activity .card').dataset.tool === 'cordis_stop'`)
	waitJS(t, ctx, `[...document.querySelectorAll('.activity .card')].slice(1).every(c => c.dataset.reading === 'idle')`)
	before := activityText(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector('.conn.c-live') !== null && document.querySelectorAll('.activity .card').length === 3`)
	waitJS(t, ctx, `[...document.querySelectorAll('.activity .card')].slice(1).every(c => c.dataset.reading === 'idle')`)
	if after := activityText(t, ctx); !slices.Equal(before, after) {
		t.Fatalf("the reloaded activity list reads %q, before the reload %q", after, before)
	}
	if !strings.HasPrefix(before[0], "Stopped "+d.PluginID) {
		t.Fatalf("the stop card reads %q", before[0])
	}
}

func TestBrowserServerRestart(t *testing.T) {
	ctx := browser(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	old := newEnvWith(t, nil, serving{ln: ln})
	old.open(ctx)
	hostOnly := old.define(clockHost, "")
	old.run(hostOnly)
	rowIs(t, ctx, hostOnly.PluginID, "running")
	withView := old.define(clockHost, clockClient)
	old.run(withView)
	press(t, ctx, withView.PluginID, "Approve this version")
	rowIs(t, ctx, withView.PluginID, "running")
	frameText(t, ctx, "#answer", "Not asked yet.")

	// The server goes; a new one, with a new runner that knows other Plugins, takes its
	// address (and, configured, its token).
	old.stop()
	waitJS(t, ctx, `document.querySelector('.conn.c-reconnecting') !== null`)
	var ln2 net.Listener
	waitFor(t, "the address to be free again", func() bool { ln2, err = net.Listen("tcp", addr); return err == nil })
	e := newEnvWith(t, nil, serving{ln: ln2})
	d, err := e.r.Define(as("s1"), dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "notes"}, Name: "Notes", Purpose: "Keeps notes.", Code: dynamic.Code{Host: ptr(clockHost)}})
	if err != nil {
		t.Fatal(err)
	}

	// The page reconnects, resets its inventory and reads the new server's: the stale rows
	// and the stale frame vanish.
	waitJS(t, ctx, `document.querySelector('.conn.c-live') !== null`)
	rowIs(t, ctx, d.PluginID, "idle")
	for _, id := range []string{hostOnly.PluginID, withView.PluginID} {
		waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#row-%s') === null`, id))
	}
	waitJS(t, ctx, `document.querySelectorAll('iframe').length === 0`)
	waitJS(t, ctx, `document.querySelector('.b-run').textContent === '0 running'`)
	// The new runner hears the page too: it publishes its providers to it.
	waitFor(t, "the page's providers on the new runner", func() bool { return len(e.clientProviders()) == 3 })
}

// A streamGate holds the writes of chosen event streams, as a page whose network is slow
// would hear late: what the other pages did has not reached it.
type streamGate struct {
	mu     sync.Mutex
	opened int                   // event streams opened so far
	held   map[int]chan struct{} // stream number (from 1) → closed on release
}

func newStreamGate(t *testing.T) *streamGate {
	g := &streamGate{held: map[int]chan struct{}{}}
	t.Cleanup(g.releaseAll) // before the env's cleanup: Close waits for the streams
	return g
}

func (g *streamGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !strings.HasSuffix(req.URL.Path, "/events") {
			next.ServeHTTP(w, req)
			return
		}
		g.mu.Lock()
		g.opened++
		n := g.opened
		g.mu.Unlock()
		next.ServeHTTP(&gatedWriter{ResponseWriter: w, gate: g, n: n, ctx: req.Context()}, req)
	})
}

// hold stops stream n's writes until release.
func (g *streamGate) hold(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held[n] = make(chan struct{})
}

func (g *streamGate) release(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ch, ok := g.held[n]; ok {
		close(ch)
		delete(g.held, n)
	}
}

func (g *streamGate) releaseAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for n, ch := range g.held {
		close(ch)
		delete(g.held, n)
	}
}

type gatedWriter struct {
	http.ResponseWriter
	gate *streamGate
	n    int
	ctx  context.Context
}

func (w *gatedWriter) Write(b []byte) (int, error) {
	w.gate.mu.Lock()
	ch := w.gate.held[w.n]
	w.gate.mu.Unlock()
	if ch != nil {
		select {
		case <-ch:
		case <-w.ctx.Done():
			return 0, w.ctx.Err()
		}
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flush, write deadlines).
func (w *gatedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

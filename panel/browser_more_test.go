package panel

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// versionClient renders which version of the Plugin's client half is loaded.
func versionClient(v string) string {
	return `return (ctx) => { ctx.slots.register({ name: 'cordis.card', component: () => React.createElement('p', { id: 'version' }, 'Clock view ` + v + `') }); };`
}

// defineNext defines a new Package of an existing Plugin for session s1.
func (e *env) defineNext(pluginID, host, client string) dynamic.DefineOutput {
	e.t.Helper()
	return e.defineAs(dynamic.Target{Kind: "existing", PluginID: pluginID}, host, client)
}

// watchApprovals makes the page remember whether an approval card ever showed from now on.
func watchApprovals(t *testing.T, ctx context.Context) {
	t.Helper()
	js := `(() => { window.__asked = false; new MutationObserver(() => { if (document.querySelector('.approval')) window.__asked = true; }).observe(document.body, { childList: true, subtree: true }); return true })()`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil {
		t.Fatal(err)
	}
}

func TestBrowserApproveFutureVersions(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	d := e.define(clockHost, versionClient("1"))
	e.run(d)
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	press(t, ctx, d.PluginID, "Approve this and future versions")
	rowIs(t, ctx, d.PluginID, "running")
	frameText(t, ctx, "#version", "Clock view 1")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#row-%s .grant[data-grant=future]').innerText.includes('every future version')`, d.PluginID))

	// The model defines a new version and switches to it: the page loads it without asking.
	watchApprovals(t, ctx)
	d2 := e.defineNext(d.PluginID, clockHost, versionClient("2"))
	out, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d2.PackageID, Mode: dynamic.ModeUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status == "awaiting-approval" {
		t.Fatalf("an update under a future grant waits for approval: %+v", out)
	}
	frameText(t, ctx, "#version", "Clock view 2")
	rowIs(t, ctx, d.PluginID, "running")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#row-%s .ids').textContent.includes(%q)`, d.PluginID, d2.PackageID))
	e.told("currentPackageId is " + d2.PackageID)
	if asked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__asked`)); err != nil || asked {
		t.Fatalf("the page showed an approval card for the granted update (asked=%v, err %v)", asked, err)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('iframe.client-frame').length`)); n != 1 {
		t.Fatalf("%d client frames after the update, want the new version's one", n)
	}
}

func TestBrowserTwoPagesFirstAnswerWins(t *testing.T) {
	first := browser(t)
	gate := newStreamGate(t)
	e := newEnvWith(t, nil, serving{wrap: gate.wrap})
	e.open(first)
	second, cancel := chromedp.NewContext(first) // another tab of the same browser, with its cookie
	defer cancel()
	e.open(second)

	d := e.define(clockHost, clockClient)
	e.run(d)
	rowIs(t, first, d.PluginID, "awaiting-approval")
	rowIs(t, second, d.PluginID, "awaiting-approval")
	// Both pages offer the answer, so the second one's card has something to close.
	waitJS(t, second, fmt.Sprintf(`[...document.querySelectorAll('#row-%s .approval button')].some(b => b.textContent === 'Approve this version')`, d.PluginID))

	// The second page hears late (its stream is held): its person clicks after the first
	// page answered. That is no failure: the page says, calmly, that it was answered
	// elsewhere, and closes the buttons.
	gate.hold(2)
	press(t, first, d.PluginID, "Approve this version")
	rowIs(t, first, d.PluginID, "running")
	e.told("completed; currentPackageId is pkg-1")
	press(t, second, d.PluginID, "Approve this version")
	waitJS(t, second, fmt.Sprintf(`((document.querySelector('#row-%s .settled') || {}).innerText || '').includes('Already answered in another panel page: approved.')`, d.PluginID))
	waitJS(t, second, fmt.Sprintf(`document.querySelector('#row-%s .approval') === null`, d.PluginID))
	shoot(t, second, "answered-elsewhere")
	gate.release(2)

	// The other page's approval card closes: no buttons left to answer with, and it
	// reads what the first page's answer did (running on the host, not loaded there).
	waitJS(t, second, fmt.Sprintf(`document.querySelector('#row-%s .approval') === null`, d.PluginID))
	rowIs(t, second, d.PluginID, "client-pending")
	waitJS(t, second, `document.querySelector('.b-wait b').textContent === '0' && !document.title.startsWith('(')`)
	for _, label := range []string{"Approve this version", "Approve this and future versions", "Decline"} {
		js := fmt.Sprintf(`[...document.querySelectorAll('#row-%s button')].some(b => b.textContent === %q)`, d.PluginID, label)
		if still, err := chromedp.Run(second, chromedp.Evaluate[bool](js)); err != nil || still {
			t.Fatalf("the second page still offers %q (err %v)", label, err)
		}
	}
	if n, _ := chromedp.Run(second, chromedp.Evaluate[int](`document.querySelectorAll('iframe').length`)); n != 0 {
		t.Fatalf("the second page loaded %d frames for a run it did not answer", n)
	}
	errs, _ := chromedp.Run(second, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector('#row-%s .errors') || {}).innerText || ''`, d.PluginID)))
	if errs != "" {
		t.Fatalf("the second page shows errors after the first answered: %q", errs)
	}
	n := 0
	for _, m := range e.r.Messages("s1") {
		if strings.Contains(m.Text, "completed; currentPackageId is pkg-1") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the model was told %d times that the run completed, want once", n)
	}
}

const crashClient = `return (ctx) => { ctx.slots.register({ name: 'cordis.card', component: function Broken() { throw new Error('boom while rendering') } }); };`

func TestBrowserRenderCrash(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	d := e.define(clockHost, crashClient)
	e.run(d)
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	press(t, ctx, d.PluginID, "Approve this version")
	// The run is live (a render crash is no load failure); the row shows the slot and why.
	rowIs(t, ctx, d.PluginID, "running")
	want := "slot cordis.card: your entry in slot cordis.card crashed while React rendered it: boom while rendering"
	waitJS(t, ctx, fmt.Sprintf(`((document.querySelector('#row-%s .errors .err-render') || {}).innerText || '').includes(%q)`, d.PluginID, want))
	frameText(t, ctx, ".cordis-crash", "boom while rendering")

	// The host has the report, with its slot, on the attempt.
	deadline := time.Now().Add(5 * time.Second)
	for {
		rows, err := e.r.Inventory(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 1 && rows[0].LatestRun != nil && rows[0].LatestRun.RenderFailure != nil {
			f := rows[0].LatestRun.RenderFailure
			if f.Slot != "cordis.card" || !strings.Contains(f.Message, "boom while rendering") || !f.Abdicated {
				t.Fatalf("render failure = %+v", f)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no render failure reported to the host; inventory %+v", rows)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBrowserReload(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	hostOnly := e.define(clockHost, "")
	e.run(hostOnly) // nothing of it runs in the page: no approval asked
	rowIs(t, ctx, hostOnly.PluginID, "running")
	both := e.define(clockHost, clockClient)
	e.run(both)
	rowIs(t, ctx, both.PluginID, "awaiting-approval")
	press(t, ctx, both.PluginID, "Approve this version")
	rowIs(t, ctx, both.PluginID, "running")
	frameText(t, ctx, "#answer", "Not asked yet.")

	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector('.conn.c-live') !== null`)
	rowIs(t, ctx, hostOnly.PluginID, "running")
	rowIs(t, ctx, both.PluginID, "client-pending")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#row-%s .pill').innerText.includes('Not loaded here')`, both.PluginID))
	// The badge counts both runs, and says which one this page has not loaded.
	waitJS(t, ctx, `document.querySelector('.b-run').textContent === '2 running (1 not loaded here)'`)
	for id, want := range map[string]bool{hostOnly.PluginID: false, both.PluginID: true} {
		js := fmt.Sprintf(`[...document.querySelectorAll('#row-%s button')].some(b => b.textContent === 'Load into this page')`, id)
		if got, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil || got != want {
			t.Fatalf("%s offers Load into this page = %v (err %v), want %v", id, got, err, want)
		}
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('iframe').length`)); n != 0 {
		t.Fatalf("%d frames right after a reload", n)
	}

	// Loading it brings its view back into this page, on the same run.
	press(t, ctx, both.PluginID, "Load into this page")
	rowIs(t, ctx, both.PluginID, "running")
	waitJS(t, ctx, `document.querySelector('.b-run').textContent === '2 running'`)
	clickInFrame(t, ctx, "#ask")
	frameText(t, ctx, "#answer", "The host says t = 42")
}

func TestBrowserTwoPagesAnswerAtOnce(t *testing.T) {
	first := browser(t)
	e := newEnv(t, nil)
	e.open(first)
	second, cancel := chromedp.NewContext(first)
	defer cancel()
	e.open(second)
	d := e.define(clockHost, clockClient)
	e.run(d)
	pages := []context.Context{first, second}
	for _, p := range pages {
		rowIs(t, p, d.PluginID, "awaiting-approval")
	}

	// Both people press at the same moment: one answer reaches the model, the other is no
	// second answer and no error; both pages then read the run.
	js := fmt.Sprintf(`([...document.querySelectorAll('#row-%s button')].find(b => b.textContent === 'Approve this version').click(), true)`, d.PluginID)
	errs := make([]error, len(pages))
	var wg sync.WaitGroup
	for i, p := range pages {
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = chromedp.Run(p, chromedp.Evaluate[bool](js)) }()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
	}
	e.told("completed; currentPackageId is pkg-1")
	for i, p := range pages {
		rowIs(t, p, d.PluginID, "running")
		waitJS(t, p, fmt.Sprintf(`document.querySelector('#row-%s .approval') === null`, d.PluginID))
		errs, _ := chromedp.Run(p, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector('#row-%s .errors') || {}).innerText || ''`, d.PluginID)))
		if errs != "" {
			t.Fatalf("page %d shows errors after both answered: %q", i, errs)
		}
	}
	time.Sleep(200 * time.Millisecond) // a second answer, were there one, would be told by now
	n := 0
	for _, m := range e.r.Messages("s1") {
		if strings.Contains(m.Text, d.PluginID) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the model was told %d times about %s, want once: %+v", n, d.PluginID, e.r.Messages("s1"))
	}
}

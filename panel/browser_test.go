package panel

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

var screenshots = flag.String("screenshots", "", "write the browser tests' screenshots into this directory (docs/panel)")

// findBrowser returns a Chromium to drive: $CHROME, or one on PATH.
func findBrowser() string {
	if p := os.Getenv("CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless Chromium for one test; without one the test skips, except
// under CI=true, where it fails.
func browser(t testing.TB) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests are skipped with -short")
	}
	path := findBrowser()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found (install Debian's chromium, or set CHROME); CI=true requires the browser tests to run")
		}
		t.Skip("no Chromium found; install chromium or set CHROME to run the browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1000, 760))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// open loads the panel in a tab, with s1 as this session, and waits until it is live.
func (e *env) open(ctx context.Context) {
	e.t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(e.h.URL(e.srv.URL)+"#session=s1")); err != nil {
		e.t.Fatal(err)
	}
	waitJS(e.t, ctx, `document.querySelector('.conn.c-live') !== null`)
}

// waitJS polls a JavaScript condition in the page for up to 10 s.
func waitJS(t testing.TB, ctx context.Context, cond string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+cond+")"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("waited 10 s for %s (err %v); the page reads:\n%s", cond, err, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// press clicks the button with this text in the card of pluginID.
func press(t testing.TB, ctx context.Context, pluginID, label string) {
	t.Helper()
	js := fmt.Sprintf(`(() => { const b = [...document.querySelectorAll('#row-%s button')].find(b => b.textContent === %q); if (!b || b.disabled) return false; b.click(); return true })()`, pluginID, label)
	waitJS(t, ctx, js)
}

// rowIs waits for pluginID's card to read status; a card awaiting approval, also for its
// approve buttons, which wait for the code they approve to show.
func rowIs(t testing.TB, ctx context.Context, pluginID, status string) {
	t.Helper()
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#row-%s[data-status=%q]') && !document.querySelector('#row-%s .approval button[data-grants]:disabled')`, pluginID, status, pluginID))
}

// A frame is a client-half frame to query: its own target when Chromium runs it in another
// process, else the page with queries through the iframe node.
type frame struct {
	ctx  context.Context
	opts []chromedp.QueryOption
}

// attached holds the contexts of frame targets (the browser tests run one at a time).
var attached = map[target.ID]context.Context{}

// frames returns the client-half frames of the page, waiting up to 10 s for one.
func frames(t testing.TB, ctx context.Context) []frame {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		infos, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var fs []frame
		for _, info := range infos {
			if info.Type == "iframe" && strings.HasSuffix(info.URL, "/frame") {
				fctx, ok := attached[info.TargetID]
				if !ok {
					// Attach once per target: a second context on it would wait forever.
					var cancel context.CancelFunc
					fctx, cancel = chromedp.NewContext(ctx, chromedp.WithTargetID(info.TargetID))
					if err := chromedp.Do(fctx); err != nil { // attach now, on fctx: a first run on a timeout context would detach when it expires
						t.Fatal(err)
					}
					attached[info.TargetID] = fctx
					id := info.TargetID
					t.Cleanup(func() { cancel(); delete(attached, id) })
				}
				fs = append(fs, frame{ctx: fctx})
			}
		}
		if len(fs) > 0 {
			return fs
		}
		nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("iframe.client-frame")))
		if err == nil && len(nodes) > 0 {
			for _, n := range nodes {
				fs = append(fs, frame{ctx: ctx, opts: []chromedp.QueryOption{chromedp.FromNode(n)}})
			}
			return fs
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no client-half frame appeared")
	return nil
}

// frameText waits for sel in one of the frames to have text containing want, and
// returns that text and frame.
func frameText(t testing.TB, ctx context.Context, sel, want string) (string, frame) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var seen []string
	for time.Now().Before(deadline) {
		seen = seen[:0]
		for _, f := range frames(t, ctx) {
			qctx, cancel := context.WithTimeout(f.ctx, 300*time.Millisecond)
			s, err := chromedp.Run(qctx, chromedp.Text(chromedp.CSS(sel), f.opts...))
			cancel()
			if err == nil {
				seen = append(seen, s)
				if strings.Contains(s, want) {
					return s, f
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no frame's %s contains %q; they read %q", sel, want, seen)
	return "", frame{}
}

// clickInFrame clicks sel in the client-half frame (by script in the frame's own target:
// input events to an out-of-process frame's target are not routed).
func clickInFrame(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	_, f := frameText(t, ctx, sel, "")
	var err error
	if f.opts == nil {
		_, err = chromedp.Run(f.ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(document.querySelector(%q).click(), true)`, sel)))
	} else {
		err = chromedp.Do(f.ctx, chromedp.Click(chromedp.CSS(sel), f.opts...))
	}
	if err != nil {
		t.Fatal(err)
	}
}

func shoot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	if *screenshots == "" {
		return
	}
	time.Sleep(300 * time.Millisecond) // let the frame report its size
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*screenshots, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// told waits for a message to the model of s1 containing want.
func (e *env) told(want string) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ms := e.r.Messages("s1")
		for _, m := range ms {
			if strings.Contains(m.Text, want) {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the model was not told %q; its messages: %+v", want, ms)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// run asks, as the model of s1, to run Package d.
func (e *env) run(d dynamic.DefineOutput) dynamic.RunOutput {
	e.t.Helper()
	out, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

const clockClient = `const h = React.createElement;
styles.insert('button { font: inherit; padding: 6px 12px; } #answer { color: #17794a; font-weight: 600; }');
return {
  name: 'clock-view',
  apply(ctx) {
    ctx.slots.register({ name: 'cordis.card', component: function View() {
      const [text, setText] = React.useState('Not asked yet.');
      const ask = () => host.call('now', { from: 'button' }).then((v) => setText('The host says t = ' + v.t), (e) => setText('error: ' + e.message));
      return h('div', null, h('button', { id: 'ask', onClick: ask }, 'Ask the host for the time'), h('p', { id: 'answer' }, text));
    } });
  },
}`

func TestBrowserApproveRunStopRemove(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	waitJS(t, ctx, `document.querySelector('.empty h2')`)
	shoot(t, ctx, "empty")

	// A definition appears when the model defines it: cordis/definition-changed, well
	// before the page's 30 s fallback read.
	d := e.define(clockHost, clockClient)
	rowIs(t, ctx, d.PluginID, "idle")

	e.run(d)
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	waitJS(t, ctx, `document.querySelector('.b-wait.hot b').textContent === '1' && document.title.startsWith('(1)')`)
	shoot(t, ctx, "awaiting-approval")

	press(t, ctx, d.PluginID, "Approve this version")
	rowIs(t, ctx, d.PluginID, "running")
	e.told("completed; currentPackageId is pkg-1")
	clickInFrame(t, ctx, "#ask")
	frameText(t, ctx, "#answer", "The host says t = 42")
	shoot(t, ctx, "running")

	press(t, ctx, d.PluginID, "Stop")
	rowIs(t, ctx, d.PluginID, "idle")
	waitJS(t, ctx, `document.querySelector('iframe') === null`)
	e.told("The user stopped " + d.PluginID)

	press(t, ctx, d.PluginID, "Remove")
	waitJS(t, ctx, `document.querySelector('.confirm')`)
	press(t, ctx, d.PluginID, "Remove")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#row-%s') === null`, d.PluginID))
	e.told("The user removed " + d.PluginID)
	if rows, err := e.r.Inventory(context.Background()); err != nil || len(rows) != 0 {
		t.Fatalf("inventory after remove = %+v, %v", rows, err)
	}
}

func TestBrowserDecline(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	d := e.define(clockHost, clockClient)
	e.run(d)
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	press(t, ctx, d.PluginID, "Decline")
	e.told("The user rejected the Cordis run of " + d.PluginID)
	rowIs(t, ctx, d.PluginID, "idle")
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('iframe').length`)); n != 0 {
		t.Fatalf("%d frames after a decline", n)
	}
}

func TestBrowserClientHalfFailures(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	for i, c := range []struct{ code, stage, says string }{
		{`throw new Error('boom while evaluating')`, "evaluate", "boom while evaluating"},
		{`return notDefinedAnywhere.x`, "evaluate", "notDefinedAnywhere is not defined"},
		{`return 42`, "module-import", "must `return` a plugin"},
		{`return { inject: ['timer'], apply(ctx) { throw new Error('boom in apply') } }`, "activate", "boom in apply"},
	} {
		d := e.define(clockHost, c.code)
		e.run(d)
		rowIs(t, ctx, d.PluginID, "awaiting-approval")
		press(t, ctx, d.PluginID, "Approve this version")
		rowIs(t, ctx, d.PluginID, "failed")
		want := "Its client half failed at " + c.stage + ": "
		waitJS(t, ctx, fmt.Sprintf(`(() => { const t = document.querySelector('#row-%s .errors').innerText; return t.includes(%q) && t.includes(%q) })()`, d.PluginID, want, c.says))
		e.told("failed after cordis_run returned: client-half-failed: " + c.stage + ": ")
		if i == 0 {
			shoot(t, ctx, "failed")
		}
		if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('iframe').length`)); n != 0 {
			t.Fatalf("%s: %d frames left after a failed load", c.stage, n)
		}
	}
}

// isolationClient tries everything a client half must not reach and renders what it got.
const isolationClient = `const out = {};
const attempt = (name, f) => { try { const v = f(); out[name] = 'READ: ' + String(v); } catch (e) { out[name] = 'blocked: ' + e.name; } };
attempt('cookie', () => document.cookie);
attempt('parentDocument', () => parent.document.cookie);
attempt('parentLocation', () => parent.location.href);
attempt('topPanelState', () => top.document.querySelector('#root').innerHTML);
attempt('storage', () => localStorage.length);
attempt('siblingFrame', () => { for (let i = 0; i < parent.frames.length; i++) if (parent.frames[i] !== window) return parent.frames[i].document.body.innerHTML; return 'no sibling'; });
out.referrer = document.referrer === '' ? 'blocked: no referrer' : 'READ: ' + document.referrer;
out.address = location.href.includes('token') ? 'READ: ' + location.href : 'blocked: no token in the address';
out.fetchVerb = await globalThis.fetch('/rpc/inventory', { method: 'POST', body: '{}' }).then((r) => 'READ: ' + r.status, (e) => 'blocked: ' + e.name);
out.fetchTrap = await Promise.resolve().then(() => fetch('/rpc/inventory')).then(() => 'READ', (e) => 'blocked: ' + e.message.slice(0, 40));
return (ctx) => { ctx.slots.register({ name: 'cordis.card', component: () => React.createElement('pre', { id: 'out' }, JSON.stringify(out)) }); };`

func TestBrowserClientHalfIsIsolated(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	// A sibling frame to reach for: another Plugin's client half.
	other := e.define(clockHost, clockClient)
	e.run(other)
	press(t, ctx, other.PluginID, "Approve this version")
	rowIs(t, ctx, other.PluginID, "running")
	d := e.define(clockHost, isolationClient)
	e.run(d)
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	press(t, ctx, d.PluginID, "Approve this version")
	rowIs(t, ctx, d.PluginID, "running")
	text, _ := frameText(t, ctx, "#out", "fetchTrap")
	var got map[string]string
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("frame output %q: %v", text, err)
	}
	want := []string{"cookie", "parentDocument", "parentLocation", "topPanelState", "storage", "siblingFrame", "referrer", "address", "fetchVerb", "fetchTrap"}
	for _, k := range want {
		if v, ok := got[k]; !ok || !strings.HasPrefix(v, "blocked") || strings.Contains(v, e.h.Token()) {
			t.Errorf("%s = %q, want it blocked", k, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("attempts = %v", got)
	}
	t.Logf("%d isolation attempts refused: %v", len(want), got)
}

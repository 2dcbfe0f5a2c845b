package panel

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The approval card as a person reads it: the code that would run, what changed since
// the version they approved, and the approvals they gave, with Revoke.

const tallyHost = `// Keeps a tally of the times the user asked.
let asked = 0;
harness.handle('now', (args) => {
  asked++;
  return { t: Date.now(), asked };
});
return { name: 'clock', apply(ctx) {} };
`

const tallyHostZone = `// Keeps a tally of the times the user asked, and answers in their time zone.
let asked = 0;
harness.handle('now', (args) => {
  asked++;
  const zone = typeof args.zone === 'string' ? args.zone : 'UTC';
  return { t: Date.now(), asked, zone };
});
return { name: 'clock', apply(ctx) {} };
`

const tallyClient = `// A small clock: asks the host for the time and shows it, with how often it was asked.
const h = React.createElement;
styles.insert(
  '.clock { font: 15px system-ui; display: flex; gap: 12px; align-items: center; }' +
  '.clock button { font: inherit; padding: 6px 12px; }' +
  '.clock .t { font-weight: 600; color: #17794a; }'
);

function Clock() {
  const [state, setState] = React.useState({ text: 'Not asked yet.', asked: 0 });
  const ask = async () => {
    try {
      const v = await host.call('now', { zone: 'Europe/Paris' });
      const time = new Date(v.t).toLocaleTimeString();
      setState({ text: 'It is ' + time, asked: v.asked });
    } catch (e) {
      setState((s) => ({ ...s, text: 'error: ' + e.message }));
    }
  };
  return h('div', { className: 'clock' },
    h('button', { id: 'ask', onClick: ask }, 'What time is it?'),
    h('span', { className: 't', id: 'answer' }, state.text),
    state.asked ? h('small', null, 'asked ' + state.asked + ' times') : null);
}

return {
  name: 'clock-view',
  apply(ctx) {
    ctx.slots.register({ name: 'cordis.card', component: Clock });
  },
};
`

// evalIn evaluates a JavaScript expression of type T in the page.
func evalIn[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// halfSel is the selector of a half of pluginID's approval card.
func halfSel(pluginID, half string) string {
	return fmt.Sprintf(`#row-%s .review .half[data-half=%s]`, pluginID, half)
}

func TestBrowserApprovalShowsTheCode(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	d := e.define(tallyHost, tallyClient)
	e.run(d)
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	host, client := halfSel(d.PluginID, "host"), halfSel(d.PluginID, "client")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('%s[data-change=new]') && document.querySelector('%s[data-change=new]')`, host, client))
	// Both halves are there to read, line by line with their numbers: the host's whole,
	// the client's 33 lines folded after 24.
	lines := func(sel string) []string {
		return evalIn[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll('%s .code-lines tr')].map(r => r.cells[0].textContent + ' ' + r.cells[1].textContent)`, sel))
	}
	want := strings.Split(strings.TrimSuffix(tallyHost, "\n"), "\n")
	for i := range want {
		want[i] = fmt.Sprintf("%d %s", i+1, want[i])
	}
	if got := lines(host); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the host half reads\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	all := strings.Count(tallyClient, "\n")
	if got := lines(client); len(got) != 24 || got[0] != "1 "+strings.SplitN(tallyClient, "\n", 2)[0] {
		t.Fatalf("the folded client half shows %d lines, first %q; want 24 from line 1", len(got), got)
	}
	if say := evalIn[string](t, ctx, fmt.Sprintf(`document.querySelector('%s [data-fold=code]').textContent`, client)); say != fmt.Sprintf("Show all %d lines", all) {
		t.Fatalf("the fold says %q", say)
	}
	if says := evalIn[string](t, ctx, fmt.Sprintf(`document.querySelector('#row-%s .grant-says').innerText`, d.PluginID)); !strings.Contains(says, "pkg-1 runs now and whenever it runs again, until you revoke it") ||
		!strings.Contains(says, "every later version of "+d.PluginID+" runs too") {
		t.Fatalf("the approval card says of its buttons: %q", says)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(document.querySelector('%s [data-fold=code]').click(), true)`, client))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, fmt.Sprintf(`document.querySelectorAll('%s .code-lines tr').length === %d`, client, all))
	press(t, ctx, d.PluginID, "Approve this version")
	rowIs(t, ctx, d.PluginID, "running")
}

// TestBrowserApprovalCodeIsText: a model's markup in its code is shown as the text it is:
// no element is made of it and no script of it runs.
func TestBrowserApprovalCodeIsText(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	const hostile = `// </script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b id="bold">bold</b>`
	d := e.define(hostile+"\n"+clockHost, "/* <iframe srcdoc=\"<script>parent.__pwned = 3</script>\"></iframe> */\n"+clientCode)
	e.run(d)
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	host := halfSel(d.PluginID, "host")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('%s .tx')`, host))
	if got := evalIn[string](t, ctx, fmt.Sprintf(`document.querySelector('%s .tx').textContent`, host)); got != hostile {
		t.Fatalf("the first line reads %q, want %q", got, hostile)
	}
	made := evalIn[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('#row-%s .review img, #row-%s .review script, #row-%s .review b, #row-%s .review iframe, #bold').length`, d.PluginID, d.PluginID, d.PluginID, d.PluginID))
	pwned := evalIn[string](t, ctx, `String(window.__pwned)`)
	if made != 0 || pwned != "undefined" {
		t.Fatalf("the code made %d elements of its markup; window.__pwned = %s", made, pwned)
	}
}

func TestBrowserApprovalShowsTheChanges(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	d := e.define(tallyHost, tallyClient)
	e.run(d)
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	press(t, ctx, d.PluginID, "Approve this version")
	rowIs(t, ctx, d.PluginID, "running")

	d2 := e.defineNext(d.PluginID, tallyHostZone, tallyClient)
	if _, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d2.PackageID, Mode: dynamic.ModeUpdate}); err != nil {
		t.Fatal(err)
	}
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	host, client := halfSel(d.PluginID, "host"), halfSel(d.PluginID, "client")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#row-%s .review[data-base=pkg-1] %s')`, d.PluginID, ".half[data-half=host][data-change=changed]"))
	// Each diff line: its old number, its new number, its sign, its text.
	rows := evalIn[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll('%s .diff-lines tr:not(.d-gap)')].map(r => r.className + '|' + [...r.cells].map(c => c.textContent).join('|'))`, host))
	want := []string{
		"d-del|1||\u2212|// Keeps a tally of the times the user asked.",
		"d-add||1|+|// Keeps a tally of the times the user asked, and answers in their time zone.",
		"d-ctx|2|2||let asked = 0;",
		"d-ctx|3|3||harness.handle('now', (args) => {",
		"d-ctx|4|4||  asked++;",
		"d-del|5||\u2212|  return { t: Date.now(), asked };",
		"d-add||5|+|  const zone = typeof args.zone === 'string' ? args.zone : 'UTC';",
		"d-add||6|+|  return { t: Date.now(), asked, zone };",
		"d-ctx|6|7||});",
		"d-ctx|7|8||return { name: 'clock', apply(ctx) {} };",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the host half's changes read\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if tag := evalIn[string](t, ctx, fmt.Sprintf(`document.querySelector('%s .change').textContent`, host)); tag != "+3 \u22122 since pkg-1" {
		t.Fatalf("the host half's tag says %q", tag)
	}
	// The client half did not change: it says so, and its code is one click away.
	if tag := evalIn[string](t, ctx, fmt.Sprintf(`document.querySelector('%s[data-change=same] .change').textContent`, client)); tag != "unchanged since pkg-1" {
		t.Fatalf("the client half's tag says %q", tag)
	}
	if n := evalIn[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('%s .code-lines tr').length`, client)); n != 0 {
		t.Fatalf("the unchanged client half shows %d lines before it is asked to", n)
	}
	// pkg-1 runs on in its frame while the person reads.
	frameText(t, ctx, "#answer", "Not asked yet.")
	shoot(t, ctx, "approval-update")
	press(t, ctx, d.PluginID, "Approve this version")
	rowIs(t, ctx, d.PluginID, "running")
	e.told("currentPackageId is " + d2.PackageID)
}

// TestBrowserRevokeAsksAgain: the card lists the approvals given, each with Revoke, and a
// revoked version's next run asks again.
func TestBrowserRevokeAsksAgain(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	d := e.define(tallyHost, tallyClient)
	e.run(d)
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	press(t, ctx, d.PluginID, "Approve this version")
	rowIs(t, ctx, d.PluginID, "running")
	grant := func(key string) string { return fmt.Sprintf(`#row-%s .grants .grant[data-grant=%s]`, d.PluginID, key) }
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('%s')`, grant("pkg-1")))
	if n := evalIn[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('#row-%s .grants .grant').length`, d.PluginID)); n != 1 {
		t.Fatalf("%d approvals listed after approving one version", n)
	}
	clickInFrame(t, ctx, "#ask")
	frameText(t, ctx, "#answer", "It is ")
	shoot(t, ctx, "grants")

	press(t, ctx, d.PluginID, "Stop")
	rowIs(t, ctx, d.PluginID, "idle")
	waitJS(t, ctx, fmt.Sprintf(`(document.querySelector('%s button').click(), true)`, grant("pkg-1")))
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#row-%s .grants') === null`, d.PluginID))
	if p, err := e.r.Store().Plugin(context.Background(), d.PluginID); err != nil || len(p.Grants.Packages) != 0 || p.Grants.Future {
		t.Fatalf("grants after Revoke: %+v, %v", p.Grants, err)
	}

	// The next run asks again; this time the person approves every future version.
	if out := e.run(d); out.Status != "awaiting-approval" {
		t.Fatalf("the run after Revoke = %+v, want awaiting-approval", out)
	}
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	press(t, ctx, d.PluginID, "Approve this and future versions")
	rowIs(t, ctx, d.PluginID, "running")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('%s') && document.querySelector('%s')`, grant("pkg-1"), grant("future")))
	waitJS(t, ctx, fmt.Sprintf(`(document.querySelector('%s button').click(), true)`, grant("future")))
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('%s') === null && document.querySelector('%s')`, grant("future"), grant("pkg-1")))
	if p, err := e.r.Store().Plugin(context.Background(), d.PluginID); err != nil || p.Grants.Future {
		t.Fatalf("the future grant after its Revoke: %+v, %v", p.Grants, err)
	}
	// A new version asks again, and shows what changed since pkg-1.
	d2 := e.defineNext(d.PluginID, tallyHostZone, tallyClient)
	if out, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d2.PackageID, Mode: dynamic.ModeUpdate}); err != nil || out.Status != "awaiting-approval" {
		t.Fatalf("an update after revoking the future grant = %+v, %v; want awaiting-approval", out, err)
	}
	rowIs(t, ctx, d.PluginID, "awaiting-approval")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#row-%s .review[data-base=pkg-1]')`, d.PluginID))
}

// numbered is a host half of n lines "const lI = I;", with line at (1-based) replaced
// by its text in change and a line inserted after each line in insert.
func numbered(n int, change map[int]string, insert map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if c, ok := change[i]; ok {
			b.WriteString(c + "\n")
		} else {
			fmt.Fprintf(&b, "const l%d = %d;\n", i, i)
		}
		if s, ok := insert[i]; ok {
			b.WriteString(s + "\n")
		}
	}
	return b.String() + "return { name: 'lines', apply(ctx) {} };\n"
}

// TestBrowserApprovalFoldsTheChanges: the unchanged stretches between hunks are folded,
// say which lines they hold, and open with the numbers of both versions; a long diff is
// folded after 60 lines.
func TestBrowserApprovalFoldsTheChanges(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil)
	e.open(ctx)
	update := func(v1, v2 string) dynamic.DefineOutput {
		t.Helper()
		d := e.define(v1, clientCode)
		e.run(d)
		rowIs(t, ctx, d.PluginID, "awaiting-approval")
		press(t, ctx, d.PluginID, "Approve this version")
		rowIs(t, ctx, d.PluginID, "running")
		d2 := e.defineNext(d.PluginID, v2, clientCode)
		if _, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d2.PackageID, Mode: dynamic.ModeUpdate}); err != nil {
			t.Fatal(err)
		}
		rowIs(t, ctx, d.PluginID, "awaiting-approval")
		waitJS(t, ctx, fmt.Sprintf(`document.querySelector('%s[data-change=changed] .diff-lines')`, halfSel(d.PluginID, "host")))
		return d2
	}

	// 62 lines; one inserted after line 5 and line 50 changed: two hunks, three folds.
	d := update(numbered(60, nil, nil), numbered(60, map[int]string{50: "const l50 = 5000;"}, map[int]string{5: "const extra = 0;"}))
	host := halfSel(d.PluginID, "host")
	gaps := evalIn[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll('%s .d-gap')].map(r => r.textContent)`, host))
	want := []string{"\u22EF 2 unchanged lines (1\u20132) show", "\u22EF 38 unchanged lines (10\u201347) show", "\u22EF 8 unchanged lines (55\u201362) show"}
	if strings.Join(gaps, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the folds read\n%s\nwant\n%s", strings.Join(gaps, "\n"), strings.Join(want, "\n"))
	}
	waitJS(t, ctx, fmt.Sprintf(`(document.querySelectorAll('%s .d-gap button')[1].click(), true)`, host))
	waitJS(t, ctx, fmt.Sprintf(`document.querySelectorAll('%s .d-gap').length === 2`, host))
	rows := evalIn[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll('%s .diff-lines tr:not(.d-gap)')].map(r => [...r.cells].map(c => c.textContent).join('|'))`, host))
	for _, w := range []string{"5|5||const l5 = 5;", "|6|+|const extra = 0;", "9|10||const l9 = 9;", "46|47||const l46 = 46;", "50||\u2212|const l50 = 50;", "|51|+|const l50 = 5000;"} {
		if !slices.Contains(rows, w) {
			t.Errorf("no row %q after opening the fold; the rows:\n%s", w, strings.Join(rows, "\n"))
		}
	}

	// Every line but the last changed: 101 lines of diff, 60 shown until "Show all changes".
	d = update(numbered(50, nil, nil), strings.ReplaceAll(numbered(50, nil, nil), "const", "let"))
	host = halfSel(d.PluginID, "host")
	count := fmt.Sprintf(`document.querySelectorAll('%s .diff-lines tr:not(.d-gap)').length`, host)
	if n := evalIn[int](t, ctx, count); n != 60 {
		t.Fatalf("a diff of 101 lines shows %d before it is unfolded, want 60", n)
	}
	waitJS(t, ctx, fmt.Sprintf(`(document.querySelector('%s [data-fold=diff]').click(), true)`, host))
	waitJS(t, ctx, count+` === 101`)
}

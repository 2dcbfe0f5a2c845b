package panel

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// TestBrowserSessionPageShowsOnlyItsSession opens alice's address, with #session=bob in it
// for good measure: the page says it shows alice's session, lists her Plugins and calls
// only, loads her client half when she approves, and never shows bob's request — which
// still waits for bob.
func TestBrowserSessionPageShowsOnlyItsSession(t *testing.T) {
	ctx := browser(t)
	e := newPeopleEnv(t, nil)
	alice := e.defineIn("alice", "clock", clockHost, clockClient)
	e.runIn("alice", alice)
	bobAsks := e.defineIn("bob", "bobclk", clockHost, clockClient)
	e.runIn("bob", bobAsks)
	bobIdle := e.defineIn("bob", "bobidl", clockHost, "")

	if err := chromedp.Do(ctx, chromedp.Navigate(e.h.SessionURL(e.srv.URL, aliceToken)+"#session=bob")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector('.conn.c-live') !== null`)
	rowIs(t, ctx, alice.PluginID, "awaiting-approval")
	waitJS(t, ctx, `document.querySelector('.who[data-scope="session"]').textContent === 'Session alice'`)
	waitJS(t, ctx, `[...document.querySelectorAll('.group > h2')].map(h => h.firstChild.textContent).join('|') === 'Your plugins|What the model did'`)
	press(t, ctx, alice.PluginID, "Approve this version")
	rowIs(t, ctx, alice.PluginID, "running")
	clickInFrame(t, ctx, "#ask")
	frameText(t, ctx, "#answer", "The host says t = 42")

	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, never := range []string{bobAsks.PluginID, bobIdle.PluginID, "bob", "Other sessions", "All sessions"} {
		if strings.Contains(text, never) {
			t.Errorf("alice's page shows %q:\n%s", never, text)
		}
	}
	for _, id := range []string{bobAsks.PluginID, bobIdle.PluginID} {
		if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('#row-%s').length`, id))); n != 0 {
			t.Errorf("alice's page has a card for bob's %s", id)
		}
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('iframe').length`)); n != 1 {
		t.Errorf("alice's page holds %d client-half frames, want her one", n)
	}
	// Bob's request still waits for bob: alice's page neither saw nor answered it.
	rows, err := e.r.Inventory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rows, func(r runner.InventoryRow) bool { return r.PluginID == bobAsks.PluginID })
	if i < 0 || rows[i].LatestRun == nil || rows[i].LatestRun.Status != dynamic.RunAwaitingApproval {
		t.Fatalf("bob's request after alice's page ran: %+v", rows)
	}
	shoot(t, ctx, "session")

	// The operator's address shows every session, and says so.
	if err := chromedp.Do(ctx, chromedp.Navigate(e.h.URL(e.srv.URL))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector('.conn.c-live') !== null`)
	waitJS(t, ctx, `document.querySelector('.who[data-scope="all"]').textContent === 'Every session'`)
	rowIs(t, ctx, bobAsks.PluginID, "awaiting-approval")
	rowIs(t, ctx, bobIdle.PluginID, "idle")
	rowIs(t, ctx, alice.PluginID, "client-pending")
	shoot(t, ctx, "operator")
}

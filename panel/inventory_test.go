package panel

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The inventory verb when one session floods it: every answer stays within
// runner.Options.MaxInventoryBytes, another session still gets all of its rows, and the
// operator is told how many Plugins the answer left out.

const (
	floodBound    = 24 << 10 // MaxInventoryBytes in these tests: a row's share is 384 bytes
	floodPlugins  = 150      // bob's Plugins: far more than the bound holds
	aliceVersions = 20       // the versions of alice's long Plugin: its row is over its share
)

// floodEnv is a people env whose runner bounds the inventory to floodBound.
func floodEnv(t testing.TB) *env {
	t.Helper()
	return newPeopleEnvWith(t, nil, serving{tune: func(o *runner.Options) { o.MaxInventoryBytes = floodBound }})
}

// A flood is what the sessions of a floodEnv hold.
type flood struct {
	alice    []string // alice's Plugins, in creation order
	long     string   // the one of them with aliceVersions versions
	newest   string   // its newest version
	bobFirst []string // bob's Plugins defined before the flood, which it crowds out
	bob      int      // how many Plugins bob holds
}

// before gives alice a Plugin and one of aliceVersions versions, and bob three Plugins.
func (e *env) before() *flood {
	e.t.Helper()
	f := &flood{}
	f.alice = append(f.alice, e.defineIn("alice", "clock", clockHost, "").PluginID)
	d := e.defineIn("alice", "notes", clockHost, "")
	f.long, f.newest = d.PluginID, d.PackageID
	for i := 2; i <= aliceVersions; i++ {
		out := e.callToolAs("alice", "cordis_define", map[string]any{"plugin": map[string]string{"kind": "existing", "pluginId": f.long},
			"name": "Notes of alice", "purpose": fmt.Sprintf("Keeps alice's notes, version %d.", i), "code": map[string]string{"host": clockHost}})
		var v dynamic.DefineOutput
		if err := json.Unmarshal(out, &v); err != nil || v.PackageID == "" {
			e.t.Fatalf("version %d of %s: %s", i, f.long, out)
		}
		f.newest = v.PackageID
	}
	f.alice = append(f.alice, f.long)
	for range 3 {
		f.bobFirst = append(f.bobFirst, e.defineIn("bob", "bobfl", clockHost, "").PluginID)
	}
	f.bob = len(f.bobFirst)
	return f
}

// flood has bob's model define floodPlugins more Plugins.
func (e *env) flood(f *flood) {
	e.t.Helper()
	for range floodPlugins {
		e.defineIn("bob", "bobfl", clockHost, "")
	}
	f.bob += floodPlugins
}

// inventoryOf is the inventory answer to token, checked against the bound.
func (e *env) inventoryOf(token string) runner.InventoryPage {
	e.t.Helper()
	var page runner.InventoryPage
	_, en, _ := e.callAs(token, "inventory", nil)
	if !en.OK || json.Unmarshal(en.Value, &page) != nil {
		e.t.Fatalf("inventory: %+v", en)
	}
	if b, _ := json.Marshal(page.Rows); len(b) > floodBound {
		e.t.Errorf("the rows of the answer take %d bytes of JSON, over MaxInventoryBytes %d", len(b), floodBound)
	}
	if page.Omitted != page.Plugins-len(page.Rows) {
		e.t.Errorf("the answer counts %d Plugins and %d omitted, with %d rows", page.Plugins, page.Omitted, len(page.Rows))
	}
	return page
}

func pluginIDs(rows []runner.InventoryRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.PluginID
	}
	return out
}

func TestInventoryFloodedBySession(t *testing.T) {
	e := floodEnv(t)
	f := e.before()
	e.flood(f)

	// Alice's page gets every one of her rows, and only hers; her long Plugin's row is
	// compact: its newest version, and the count of all of them.
	alice := e.inventoryOf(aliceToken)
	if got := pluginIDs(alice.Rows); !slices.Equal(got, f.alice) || alice.Plugins != 2 || alice.Omitted != 0 || !alice.Truncated {
		t.Fatalf("alice's inventory = %v (%d Plugins, %d omitted, truncated %v), want all of %v and truncated (one compact row)", got, alice.Plugins, alice.Omitted, alice.Truncated, f.alice)
	}
	if long := alice.Rows[1]; !long.Compact || long.PackageCount != aliceVersions || len(long.Packages) != 1 || long.Packages[0].PackageID != f.newest {
		t.Errorf("alice's long row = compact %v, %d of %d versions %+v; want compact, only %s of %d", long.Compact, len(long.Packages), long.PackageCount, long.Packages, f.newest, aliceVersions)
	}
	if alice.Rows[0].Compact {
		t.Errorf("alice's small row was made compact: %+v", alice.Rows[0])
	}

	// The operator's answer holds alice's rows beside bob's newest, and counts the rest.
	op := e.inventoryOf(e.h.Token())
	if op.Plugins != 2+f.bob || op.Omitted == 0 || !op.Truncated {
		t.Fatalf("the operator's inventory: %d Plugins, %d omitted, truncated %v; want %d Plugins, some omitted", op.Plugins, op.Omitted, op.Truncated, 2+f.bob)
	}
	got := pluginIDs(op.Rows)
	for _, id := range f.alice {
		if !slices.Contains(got, id) {
			t.Errorf("bob's flood crowded alice's %s out of the operator's inventory %v", id, got)
		}
	}
	for _, id := range f.bobFirst {
		if slices.Contains(got, id) {
			t.Errorf("the operator's inventory lists bob's oldest %s; it keeps the newest first", id)
		}
	}

	// Bob's own page is bounded the same way and sees none of alice's.
	bob := e.inventoryOf(bobToken)
	if bob.Plugins != f.bob || bob.Omitted == 0 || !bob.Truncated || slices.ContainsFunc(bob.Rows, func(r runner.InventoryRow) bool { return r.Session != "bob" }) {
		t.Fatalf("bob's inventory: %d Plugins, %d omitted, truncated %v, sessions of its rows %v", bob.Plugins, bob.Omitted, bob.Truncated, pluginIDs(bob.Rows))
	}
}

// TestBrowserInventoryFlooded: the operator's page, open while bob floods, says how many
// Plugins it does not show and does not take the ones it showed before for removed;
// alice's page shows her Plugins, her long one's card saying what it leaves out.
func TestBrowserInventoryFlooded(t *testing.T) {
	ctx := browser(t)
	e := floodEnv(t)
	f := e.before()
	if err := chromedp.Do(ctx, chromedp.Navigate(e.h.URL(e.srv.URL))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector('.conn.c-live') !== null`)
	for _, id := range f.bobFirst {
		rowIs(t, ctx, id, "idle")
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.bounded').length`)); n != 0 {
		t.Fatalf("the page says Plugins are not shown before the flood")
	}

	e.flood(f)
	op := e.inventoryOf(e.h.Token())
	if op.Omitted == 0 {
		t.Fatalf("the flood left nothing out: %d Plugins", op.Plugins)
	}
	note := fmt.Sprintf("%d plugins not shown (the list is bounded; remove some you no longer need, or open the panel for one session).", op.Omitted)
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('.bounded[data-omitted="%d"]') && document.querySelectorAll('article.row').length === %d`, op.Omitted, len(op.Rows)))
	if text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('.bounded').textContent`)); err != nil || text != note {
		t.Errorf("the note reads %q (%v), want %q", text, err, note)
	}
	for _, id := range f.alice {
		rowIs(t, ctx, id, "idle")
	}
	// Bob's first Plugins have no card now, and their define cards do not read removed:
	// a bounded answer that leaves them out says nothing of whether they exist.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const b = document.querySelector('.activity > .btn.link'); if (b) b.click(); return true })()`)); err != nil {
		t.Fatal(err)
	}
	for _, id := range f.bobFirst {
		if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('#row-%s').length`, id))); n != 0 {
			t.Errorf("the page still has a card for %s, which the answer left out", id)
		}
		js := fmt.Sprintf(`[...document.querySelectorAll('li.card[data-tool="cordis_define"]')].filter(c => c.textContent.includes(' %s \u00B7')).map(c => c.dataset.reading).join(',')`, id)
		waitJS(t, ctx, js+` !== ''`)
		if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](js)); got != "idle" {
			t.Errorf("the define card of %s reads %q, want idle (not removed)", id, got)
		}
	}
	shoot(t, ctx, "inventory-bounded")

	// Alice's page: her two cards, none of bob's, no note; her long Plugin's card says it
	// lists one of its versions.
	if err := chromedp.Do(ctx, chromedp.Navigate(e.h.SessionURL(e.srv.URL, aliceToken))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector('.conn.c-live') !== null`)
	for _, id := range f.alice {
		rowIs(t, ctx, id, "idle")
	}
	want := fmt.Sprintf("Showing 1 of its %d versions: the newest. The list is bounded, so this card is shortened.", aliceVersions)
	if text, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('#row-%s .compact-note').textContent`, f.long))); err != nil || text != want {
		t.Errorf("alice's long card says %q (%v), want %q", text, err, want)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('article.row').length`)); n != len(f.alice) {
		t.Errorf("alice's page has %d cards, want her %d", n, len(f.alice))
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.bounded, #row-`+f.alice[0]+` .compact-note').length`)); n != 0 {
		t.Errorf("alice's page says %d times that it leaves something out of her whole list or her small card", n)
	}
	shoot(t, ctx, "inventory-session")
}

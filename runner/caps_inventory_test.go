package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"slices"
	"strings"
	"testing"
)

// defineWith defines a client-only Package with purpose for session, on a new Plugin.
func (e *env) defineWith(session, purpose string) dynamic.DefineOutput {
	e.t.Helper()
	d, err := e.r.Define(as(session), dynamic.DefineInput{Plugin: newPlugin("page"), Name: "Page", Purpose: purpose, Code: dynamic.Code{Client: ptr(clientCode)}})
	if err != nil {
		e.t.Fatalf("define for %s: %v", session, err)
	}
	return d
}

// checkPage checks what every InventoryPage answer must hold: its rows' JSON within the
// bound and each row within its share, the counts, and creation order.
func checkPage(t *testing.T, page InventoryPage, bound, plugins int) {
	t.Helper()
	b, err := json.Marshal(page.Rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > bound {
		t.Errorf("the rows take %d bytes of JSON, over the bound of %d", len(b), bound)
	}
	var size sizer
	for _, row := range page.Rows {
		if b, _ := json.Marshal(row); len(b)+1 != size.of(row) {
			t.Errorf("row %s is %d bytes of JSON; the sizer says %d with its comma", row.PluginID, len(b), size.of(row))
		}
		if n := size.of(row); n > bound/inventoryRowsAlways {
			t.Errorf("row %s takes %d bytes, over a row's share of %d", row.PluginID, n, bound/inventoryRowsAlways)
		}
	}
	if page.Plugins != plugins || page.Omitted != plugins-len(page.Rows) || page.Truncated != (page.Omitted > 0 || slices.ContainsFunc(page.Rows, func(r InventoryRow) bool { return r.Compact })) {
		t.Errorf("counts: %d Plugins, %d rows, %d omitted, truncated %v; want %d Plugins", page.Plugins, len(page.Rows), page.Omitted, page.Truncated, plugins)
	}
	if !slices.IsSortedFunc(page.Rows, func(a, b InventoryRow) int { return pluginNumber(a.PluginID) - pluginNumber(b.PluginID) }) {
		t.Error("the rows are not in creation order")
	}
}

// pluginNumber is N of a Plugin id "prefix-N".
func pluginNumber(id string) int {
	var n int
	fmt.Sscanf(id[strings.LastIndexByte(id, '-')+1:], "%d", &n)
	return n
}

// One session that floods the inventory with large Plugins cannot crowd another out of
// it, nor make the answer every page reads larger than the bound: the flooding session's
// rows are made compact and the ones past the bound left out (and counted), while the
// other session's rows and the flooder's Plugin in flight are all there.
func TestInventoryPageOneSessionCannotCrowdOutAnother(t *testing.T) {
	const bound, flood = 48 << 10, 200
	e := newEnv(t, &Options{MaxInventoryBytes: bound, MaxPluginsPerSession: 1000, MaxPackagesPerSession: 1000})
	purpose := strings.Repeat("Floods the inventory. ", 70) // 1,540 bytes
	e.defineWith("B", "B's first Plugin.")
	for range flood / 2 {
		e.defineWith("A", purpose)
	}
	pending := e.defineWith("A", purpose)
	if _, err := e.r.Run(as("A"), dynamic.RunInput{PluginID: pending.PluginID, PackageID: pending.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	for range flood/2 - 1 {
		e.defineWith("A", purpose)
	}
	e.defineWith("B", "B's second Plugin.")

	page, err := e.r.InventoryPage(context.Background(), InventoryScope{Every: true})
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, page, bound, flood+2)
	if page.Omitted == 0 || !page.Truncated {
		t.Fatalf("%d rows of %d Plugins, none left out: the test does not reach the bound", len(page.Rows), page.Plugins)
	}
	var b []string
	a := 0
	for _, row := range page.Rows {
		switch row.Session {
		case "B":
			b = append(b, row.Packages[0].Purpose)
		case "A":
			a++
			if !row.Compact || !strings.HasSuffix(row.Packages[0].Purpose, cutMark) || len(row.Packages[0].Purpose) > compactPurposeBytes {
				t.Fatalf("A's large row %s is not compact: %+v", row.PluginID, row)
			}
		}
	}
	if !slices.Equal(b, []string{"B's first Plugin.", "B's second Plugin."}) {
		t.Fatalf("B's rows in the answer: %q; want both", b)
	}
	if !slices.ContainsFunc(page.Rows, func(r InventoryRow) bool { return r.PluginID == pending.PluginID }) {
		t.Fatalf("A's Plugin with a waiting request (%s) is not in the answer", pending.PluginID)
	}
	if a == 0 || a+page.Omitted != flood {
		t.Fatalf("A has %d rows and %d left out; want some rows and the rest counted", a, page.Omitted)
	}
	// The unbounded Go listing still has every Plugin, whole.
	all, err := e.r.Inventory(context.Background())
	if err != nil || len(all) != flood+2 || all[1].Compact || all[1].Packages[0].Purpose != strings.TrimSpace(purpose) {
		t.Fatalf("Inventory: %d rows, %v", len(all), err)
	}
}

// A session's answer holds only its own Plugins, bounded the same way, however many
// another session holds; the zero scope (a caller that named no session) lists nothing.
func TestInventoryPageOfOneSession(t *testing.T) {
	const bound = 24 << 10
	e := newEnv(t, &Options{MaxInventoryBytes: bound, MaxPluginsPerSession: 1000, MaxPackagesPerSession: 1000})
	for range 100 {
		e.defineWith("A", strings.Repeat("a", 1000))
	}
	e.defineWith("B", "B's Plugin.")
	page, err := e.r.InventoryPage(context.Background(), InventoryScope{Session: "B"})
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, page, bound, 1)
	if len(page.Rows) != 1 || page.Rows[0].Session != "B" || page.Truncated {
		t.Fatalf("B's answer: %+v", page)
	}
	page, err = e.r.InventoryPage(context.Background(), InventoryScope{Session: "A"})
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, page, bound, 100)
	if slices.ContainsFunc(page.Rows, func(r InventoryRow) bool { return r.Session != "A" }) || page.Omitted == 0 {
		t.Fatalf("A's answer holds another session's row or leaves nothing out: %d rows, %d omitted", len(page.Rows), page.Omitted)
	}
	page, err = e.r.InventoryPage(context.Background(), InventoryScope{})
	if err != nil || page.Plugins != 0 || len(page.Rows) != 0 || page.Rows == nil {
		t.Fatalf("the zero scope's answer: %+v, %v; want no Plugins (and rows [], not null)", page, err)
	}
}

// A row over its share keeps what a page needs to act on the Plugin — its pointers' and
// latest run's Packages, their grants, the diagnostic's start — and says it was cut; a
// row that cannot fit even so is left out and counted, and the rest of the answer stands.
func TestInventoryPageCompactRows(t *testing.T) {
	const bound = 256 << 10 // a row's share: 4 KiB
	s := NewMemoryStore()
	ctx := context.Background()
	for i := range 10 {
		d := Definition{Session: "A", Name: fmt.Sprintf("v%d", i+1), Purpose: strings.Repeat("p", 300), Client: clientCode}
		if i == 0 {
			d.Prefix = "page"
		} else {
			d.PluginID = "page-1"
		}
		if _, _, err := s.Define(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	huge := strings.Repeat("é", 50_000) // a diagnostic of 100,000 bytes
	if _, err := s.Update(ctx, "page-1", Change{Current: ptr("pkg-3"), Next: ptr("pkg-7"), Grant: "pkg-3", Attempt: &dynamic.Attempt{PluginRunID: "run-1", PackageID: "pkg-7", Mode: dynamic.ModeUpdate,
		Status: dynamic.RunFailed, Host: dynamic.Half{Status: dynamic.HalfAbsent}, Client: dynamic.Half{Status: dynamic.HalfFailed, Error: huge}, Error: &dynamic.Diagnostic{Phase: dynamic.PhaseClientApply, Message: huge, Stack: huge}}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"pkg-2", "pkg-9"} {
		if _, err := s.Update(ctx, "page-1", Change{Grant: id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.Define(ctx, Definition{Session: strings.Repeat("s", 8000), Prefix: "long", Name: "Long", Purpose: "p", Client: clientCode}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Define(ctx, Definition{Session: "B", Prefix: "page", Name: "B", Purpose: "p", Client: clientCode}); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, &Options{Store: s, Host: &fakeHost{}, MaxInventoryBytes: bound})
	page, err := e.r.InventoryPage(ctx, InventoryScope{Every: true})
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, page, bound, 3)
	if len(page.Rows) != 2 || page.Rows[0].PluginID != "page-1" || page.Rows[1].Session != "B" || page.Omitted != 1 {
		t.Fatalf("answer: %d rows (%v), %d omitted; want page-1 and B's, the row with an 8,000-byte session left out", len(page.Rows), page.Rows, page.Omitted)
	}
	row := page.Rows[0]
	var ids []string
	for _, k := range row.Packages {
		ids = append(ids, k.PackageID)
	}
	if !row.Compact || row.PackageCount != 10 || !slices.Equal(ids, []string{"pkg-3", "pkg-7"}) || !slices.Equal(row.Grants.Packages, []string{"pkg-3"}) {
		t.Fatalf("compact row: compact %v, %d Packages, listed %v, grants %v", row.Compact, row.PackageCount, ids, row.Grants.Packages)
	}
	a := row.LatestRun
	for what, text := range map[string]string{"message": a.Error.Message, "stack": a.Error.Stack, "client error": a.Client.Error} {
		if len(text) > compactTextBytes || !strings.HasSuffix(text, cutMark) || !strings.HasPrefix(huge, strings.TrimSuffix(text, cutMark)) {
			t.Errorf("the cut %s is %d bytes: %.40q…", what, len(text), text)
		}
	}
	if p := e.plugin("page-1"); len(p.Latest.Error.Message) != len(huge) || len(p.Grants.Packages) != 3 {
		t.Fatal("compacting a row changed the stored Plugin")
	}
}

// The red team's flood, within the caps: 100 sessions with 15 waiting requests each on
// Plugins with the longest purposes made a 3.5 MB inventory every page re-read; the
// answer a page reads now stays within the default bound, and each session still has its
// Plugin in flight first.
func TestInventoryPageUnderTheRedTeamsFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 1,500 defines and runs")
	}
	e := newEnv(t, nil)
	purpose := strings.Repeat("x", DefaultMaxPurposeBytes)
	for s := range 100 {
		session := fmt.Sprintf("mcp-%d", s)
		for range 15 {
			d := e.defineWith(session, purpose)
			if _, err := e.r.Run(as(session), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
				t.Fatal(err)
			}
		}
	}
	all, err := e.r.Inventory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := json.Marshal(all)
	page, err := e.r.InventoryPage(context.Background(), InventoryScope{Every: true})
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, page, DefaultMaxInventoryBytes, 1500)
	sent, _ := json.Marshal(page)
	seen := map[string]bool{}
	for _, row := range page.Rows {
		seen[row.Session] = true
	}
	if len(seen) != 100 {
		t.Fatalf("%d sessions have a row in the answer; want all 100", len(seen))
	}
	t.Logf("the whole inventory: %d bytes; the answer a page reads: %d bytes (%d rows, %d left out)", len(whole), len(sent), len(page.Rows), page.Omitted)
}

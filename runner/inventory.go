package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"slices"
	"unicode/utf8"
)

// InventoryRow is one Plugin as the panel lists it: no source code. PackageCount is how
// many Packages the Plugin holds; Packages lists every one of them unless the row is
// Compact.
type InventoryRow struct {
	PluginID         string                `json:"pluginId"`                   // the Plugin
	Session          string                `json:"session"`                    // its session
	Packages         []dynamic.PackageInfo `json:"packages"`                   // its Packages without source, in define order (only some when Compact)
	PackageCount     int                   `json:"packageCount"`               // how many Packages it has
	CurrentPackageID string                `json:"currentPackageId,omitempty"` // the last Package whose run completed
	NextPackageID    string                `json:"nextPackageId,omitempty"`    // the Package being approved or started, or that failed most recently
	Grants           Grants                `json:"grants"`                     // a person's grants
	ActiveRun        *dynamic.ActiveRun    `json:"activeRun,omitempty"`        // the live run
	LatestRun        *dynamic.Attempt      `json:"latestRun,omitempty"`        // the most recent run attempt
	// Compact says that InventoryPage cut the row to fit a row's share of its answer:
	// Packages lists only the Packages the pointers and the latest run name (else the
	// newest), Grants.Packages only those of them, and a long purpose or diagnostic text
	// ends in cutMark.
	Compact bool `json:"compact,omitempty"`
}

// Inventory lists every Plugin of every session in creation order, whole and unbounded:
// for Go code. A page reads InventoryPage.
func (r *Runner) Inventory(ctx context.Context) ([]InventoryRow, error) {
	ps, err := r.store.Plugins(ctx, "")
	if err != nil {
		return nil, err
	}
	return r.inventoryRows(ps), nil
}

// An InventoryPage is one answer of the inventory page verb: the rows of at most
// Options.MaxInventoryBytes of JSON, in creation order, and what the answer leaves out.
// Plugins counts the Plugins there are; Omitted those Rows leaves out; Truncated says
// that something is left out (Omitted > 0, or a row is Compact).
type InventoryPage struct {
	Rows      []InventoryRow `json:"rows"`      // the Plugins, in creation order, within MaxInventoryBytes
	Plugins   int            `json:"plugins"`   // how many Plugins there are in scope
	Omitted   int            `json:"omitted"`   // how many of them Rows leaves out
	Truncated bool           `json:"truncated"` // something is left out: Omitted > 0, or a row is Compact
}

// The shares of an InventoryPage.
const (
	// inventoryRowsAlways is how many rows of the largest size an answer always holds: a
	// row may take 1/inventoryRowsAlways of Options.MaxInventoryBytes (16 KiB of the
	// default) and is made Compact, or left out, past it.
	inventoryRowsAlways = 64
	// minRowBytes is less than the JSON of any row: with less room left, the rest is out.
	minRowBytes = 64
	// A Compact row's purposes and diagnostic texts are cut to these many bytes.
	compactPurposeBytes = 256
	compactTextBytes    = 512
)

// cutMark ends a text a Compact row cut.
const cutMark = "… [cut]"

// An InventoryScope says whose Plugins an InventoryPage lists: every session's (Every:
// an operator's view) or Session's alone. The zero scope lists nothing, so a caller that
// failed to fill it in shows no one's Plugins by mistake.
type InventoryScope struct {
	Every   bool
	Session string
}

// InventoryPage answers the inventory page verb for the Plugins of scope. The answer
// holds at most
// Options.MaxInventoryBytes of rows, and no session can crowd another out of it: every
// session's first row claims room before any session's second, and so on (sessions in
// the order their first Plugin was created); within a session, Plugins with something in
// flight (a live run, a start, a waiting request) come first, then the newest. A row over
// its share (1/64 of the bound) is made Compact, and left out if still over it. Rows come
// back in creation order.
//
// A page shows Rows and, when Truncated, says so with the counts. A Plugin missing from
// a truncated answer may still exist: the page must not show it as removed on that
// evidence alone.
func (r *Runner) InventoryPage(ctx context.Context, scope InventoryScope) (InventoryPage, error) {
	if !scope.Every && scope.Session == "" {
		return InventoryPage{Rows: []InventoryRow{}}, nil
	}
	session := scope.Session
	if scope.Every {
		session = "" // the Store's every session
	}
	ps, err := r.store.Plugins(ctx, session)
	if err != nil {
		return InventoryPage{}, err
	}
	rows := r.inventoryRows(ps)
	keep := r.fitInventory(rows)
	page := InventoryPage{Rows: make([]InventoryRow, 0, len(rows)), Plugins: len(rows)}
	for i, row := range rows {
		if !keep[i] {
			page.Omitted++
			continue
		}
		page.Rows = append(page.Rows, row)
		page.Truncated = page.Truncated || row.Compact
	}
	page.Truncated = page.Truncated || page.Omitted > 0
	return page, nil
}

// inventoryRows makes the rows of ps, their live runs read under one lock.
func (r *Runner) inventoryRows(ps []Plugin) []InventoryRow {
	rows := make([]InventoryRow, len(ps))
	for i, p := range ps {
		rows[i] = InventoryRow{PluginID: p.ID, Session: p.Session, Packages: packageInfos(p), PackageCount: len(p.Packages),
			CurrentPackageID: p.Current, NextPackageID: p.Next, Grants: p.Grants, LatestRun: p.Latest}
	}
	runs := make([]dynamic.ActiveRun, len(ps))
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, p := range ps {
		if l := r.live[p.ID]; l != nil && l.run != nil {
			runs[i] = dynamic.ActiveRun{PluginRunID: l.run.id, PackageID: l.run.pkg}
			rows[i].ActiveRun = &runs[i]
		}
	}
	return rows
}

// fitInventory picks the rows of one answer in fairOrder, making Compact (in place) those
// over a row's share, and reports which it keeps.
func (r *Runner) fitInventory(rows []InventoryRow) []bool {
	left := r.opts.MaxInventoryBytes
	share := max(left/inventoryRowsAlways, minRowBytes)
	keep := make([]bool, len(rows))
	var size sizer
	for _, i := range fairOrder(rows) {
		if left < minRowBytes {
			break
		}
		row, n := rows[i], size.of(rows[i])
		if n > share {
			row = compactRow(row)
			n = size.of(row)
		}
		if n > share || n > left {
			continue
		}
		rows[i], keep[i] = row, true
		left -= n
	}
	return keep
}

// A sizer measures rows as json.Marshal encodes them, in one reused buffer.
type sizer struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// of returns the bytes row takes in an answer: its JSON and a comma (the newline Encode
// adds).
func (s *sizer) of(row InventoryRow) int {
	if s.enc == nil {
		s.enc = json.NewEncoder(&s.buf) // escapes HTML as json.Marshal does
	}
	s.buf.Reset()
	_ = s.enc.Encode(row) // plain data: it cannot fail
	return s.buf.Len()
}

// fairOrder returns the indexes of rows in the order they claim room in an answer (see
// InventoryPage): by rank within their session, then by session.
func fairOrder(rows []InventoryRow) []int {
	bySession := map[string][]int{}
	var sessions []string
	for i, row := range rows {
		if _, ok := bySession[row.Session]; !ok {
			sessions = append(sessions, row.Session)
		}
		bySession[row.Session] = append(bySession[row.Session], i)
	}
	for _, ids := range bySession {
		slices.Reverse(ids) // newest first
		slices.SortStableFunc(ids, func(a, b int) int { return rank(rows[a]) - rank(rows[b]) })
	}
	order := make([]int, 0, len(rows))
	for k := 0; len(sessions) > 0; k++ {
		more := sessions[:0]
		for _, s := range sessions {
			if ids := bySession[s]; k < len(ids) {
				order = append(order, ids[k])
				more = append(more, s)
			}
		}
		sessions = more
	}
	return order
}

// rank is 0 for a row with something in flight (a live run, a start, a waiting request),
// else 1.
func rank(row InventoryRow) int {
	if row.ActiveRun != nil {
		return 0
	}
	if a := row.LatestRun; a != nil && (a.Status == dynamic.RunAwaitingApproval || a.Status == dynamic.RunStartingHost || a.Status == dynamic.RunClientPending) {
		return 0
	}
	return 1
}

// compactRow returns row cut as InventoryRow.Compact says.
func compactRow(row InventoryRow) InventoryRow {
	named := func(id string) bool {
		return id != "" && (id == row.CurrentPackageID || id == row.NextPackageID || row.LatestRun != nil && id == row.LatestRun.PackageID)
	}
	pkgs := []dynamic.PackageInfo{}
	for _, k := range row.Packages {
		if named(k.PackageID) {
			pkgs = append(pkgs, k)
		}
	}
	if len(pkgs) == 0 && len(row.Packages) > 0 {
		pkgs = append(pkgs, row.Packages[len(row.Packages)-1])
	}
	for i := range pkgs {
		pkgs[i].Purpose = cut(pkgs[i].Purpose, compactPurposeBytes)
	}
	row.Packages = pkgs
	row.Grants.Packages = slices.DeleteFunc(slices.Clone(row.Grants.Packages), func(id string) bool {
		return !slices.ContainsFunc(pkgs, func(k dynamic.PackageInfo) bool { return k.PackageID == id })
	})
	if a := cloneAttempt(row.LatestRun); a != nil {
		for _, s := range []*string{&a.Host.Error, &a.Client.Error} {
			*s = cut(*s, compactTextBytes)
		}
		if d := a.Error; d != nil {
			d.Message, d.Stack = cut(d.Message, compactTextBytes), cut(d.Stack, compactTextBytes)
		}
		if f := a.RenderFailure; f != nil {
			f.Slot, f.Message, f.Stack = cut(f.Slot, compactTextBytes), cut(f.Message, compactTextBytes), cut(f.Stack, compactTextBytes)
		}
		row.LatestRun = a
	}
	row.Compact = true
	return row
}

// cut returns s cut to at most n bytes at a character boundary, ending in cutMark.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len(cutMark)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + cutMark
}

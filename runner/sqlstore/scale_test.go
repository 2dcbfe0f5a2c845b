package sqlstore

import (
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
)

var perfFloors = flag.Bool("sqlstore.floors", false, "fail TestScale when a ratio misses its floor (off by default: a shared machine's noise is not a bug)")

// source is a Package of realistic size: a 2 KB host half and a 4 KB client half.
var hostSrc, clientSrc = strings.Repeat("h", 2<<10), strings.Repeat("c", 4<<10)

// TestScale measures, beside their floors in one run: a define on a Plugin holding
// thousands of Packages against a bare INSERT of the same bytes in one transaction on the
// same file, and the restore of those Packages at Open against a bare SELECT of the same
// rows. It logs the numbers; -sqlstore.floors makes the targets (3× and 2×) fail it.
func TestScale(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a scale measurement; run without -short and -race")
	}
	n, small := 10_000, 1_000
	path := filepath.Join(t.TempDir(), "definitions.db")
	s := open(t, path, nil)
	storetest.MustDefine(t, s, runner.Definition{Session: "s1", Prefix: "big", Name: "Big", Purpose: "p", Host: hostSrc, Client: clientSrc})
	if _, err := s.conn.ExecContext(bg, "CREATE TABLE bare (name TEXT, purpose TEXT, host TEXT, client TEXT)"); err != nil {
		t.Fatal(err)
	}
	bulk(t, s, 2, small-1)
	s.Close()

	// The same define on a Plugin of 1,000 Packages: how the cost grows with the Packages.
	s = open(t, path, nil)
	smallDef, smallIns := defines(t, s, 50)
	bulk(t, s, small+51, n-small-50)
	s.Close()

	s = open(t, path, nil)
	def, ins := defines(t, s, 100)
	defineRatio := float64(def) / float64(ins)
	s.Close()
	var restore, sel []time.Duration
	for range 5 {
		start := time.Now()
		s2, err := Open(bg, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		restore = append(restore, time.Since(start))
		if p, _ := s2.Plugin(bg, "big-1"); len(p.Packages) != n+100 {
			t.Fatalf("restored %d packages, want %d", len(p.Packages), n+100)
		}
		start = time.Now()
		bareSelect(t, s2)
		sel = append(sel, time.Since(start))
		s2.Close()
	}
	restoreRatio := float64(p50(restore)) / float64(p50(sel))
	empty := emptyOpen(t)
	t.Logf("define on a Plugin of %d Packages: p50 %v; bare INSERT of the same bytes: p50 %v; ratio %.2f×", small, smallDef, smallIns, float64(smallDef)/float64(smallIns))
	t.Logf("define on a Plugin of %d Packages: p50 %v; bare INSERT of the same bytes: p50 %v; ratio %.2f× (target ≤ 3×)", n, def, ins, defineRatio)
	t.Logf("restore of %d Packages at Open: median %v; bare SELECT of the same rows on an open connection: %v; ratio %.2f× (target ≤ 2×)", n+100, p50(restore), p50(sel), restoreRatio)
	t.Logf("Open of an existing empty store: median %v (target: adds ≤ 5 ms to a boot)", empty)
	if *perfFloors && (defineRatio > 3 || restoreRatio > 2 || empty > 5*time.Millisecond) {
		t.Errorf("a figure misses its floor: define %.2f× (≤ 3×), restore %.2f× (≤ 2×), empty open %v (≤ 5 ms)", defineRatio, restoreRatio, empty)
	}
}

// defines is the p50 of count defines on big-1, each beside a bare INSERT of the same
// bytes in one transaction; the first tenth is warm-up.
func defines(t *testing.T, s *Store, count int) (def, ins time.Duration) {
	t.Helper()
	var ds, bs []time.Duration
	for i := range count {
		start := time.Now()
		storetest.MustDefine(t, s, runner.Definition{Session: "s1", PluginID: "big-1", Name: "Big", Purpose: "p", Host: hostSrc, Client: clientSrc})
		d := time.Since(start)
		start = time.Now()
		bareInsert(t, s)
		b := time.Since(start)
		if i >= count/10 {
			ds, bs = append(ds, d), append(bs, b)
		}
	}
	return p50(ds), p50(bs)
}

// bulk adds count Packages to big-1 in one transaction, numbered from first, as Define
// would write them, and moves the package counter past them.
func bulk(t *testing.T, s *Store, first, count int) {
	t.Helper()
	tx, err := s.conn.BeginTx(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := now()
	for i := range count {
		if _, err := tx.Exec("INSERT INTO packages (n, plugin, name, purpose, host, client, created) VALUES (?, 1, 'Big', 'p', ?, ?, ?)", first+i, hostSrc, clientSrc, at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec("UPDATE counters SET value = ? WHERE name = 'package'", first+count-1); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func bareInsert(t *testing.T, s *Store) {
	tx, err := s.conn.BeginTx(bg, nil)
	if err == nil {
		_, err = tx.Exec("INSERT INTO bare (name, purpose, host, client) VALUES ('Big', 'p', ?, ?)", hostSrc, clientSrc)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
}

func bareSelect(t *testing.T, s *Store) {
	rows, err := s.conn.QueryContext(bg, "SELECT n, plugin, name, purpose, host, client FROM packages ORDER BY n")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n, plugin int64
	var name, purpose, host, client string
	for rows.Next() {
		if err := rows.Scan(&n, &plugin, &name, &purpose, &host, &client); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// emptyOpen is the median of 5 Opens (and Closes) of an existing empty store.
func emptyOpen(t *testing.T) time.Duration {
	path := filepath.Join(t.TempDir(), "empty.db")
	open(t, path, nil).Close()
	var ds []time.Duration
	for range 5 {
		start := time.Now()
		s, err := Open(bg, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		s.Close()
	}
	return p50(ds)
}

func p50(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

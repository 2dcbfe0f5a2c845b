package sqlstore

import (
	"bytes"
	"database/sql"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
)

// countersFile writes a closed store whose highest ids are clock-1 and abc-2 (plugin 2),
// pkg-3 (package 3), and run-3 and approval-4 (in abc-2's latest attempt), the last it
// minted of each, and returns its path with every id it ever minted.
func countersFile(t *testing.T) (string, map[string]bool) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "definitions.db")
	s, err := Open(bg, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	used := map[string]bool{}
	for _, d := range []runner.Definition{storetest.Def("s1", "clock", ""), storetest.Def("s1", "", "clock-1"), storetest.Def("s2", "abc", "")} {
		p, k := storetest.MustDefine(t, s, d)
		used[p.ID], used[k.ID] = true, true
	}
	for _, c := range []runner.Counter{runner.CounterRun, runner.CounterRun, runner.CounterRun, runner.CounterApproval, runner.CounterApproval, runner.CounterApproval, runner.CounterApproval} {
		id, err := s.Mint(bg, c)
		if err != nil {
			t.Fatal(err)
		}
		used[id] = true
	}
	storetest.MustUpdate(t, s, "abc-2", runner.Change{Attempt: storetest.Attempt("run-3", "pkg-3", "approval-4"), Current: ptr("pkg-3")})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path, used
}

// fileCounters reads the counters table with the bare driver.
func fileCounters(t *testing.T, path string) map[string]int64 {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name, value FROM counters")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		out[name] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// logTo is a logger writing text lines without times to b.
func logTo(b *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
}

// TestCountersBelowStoredIDs: a file whose id counters were set below the ids it stores
// (the counters table edited, or restored from an older copy), or lost a counter's row,
// opens with each such counter raised to the highest stored id of its kind, written in
// the opening transaction and logged once; a counter above them is never lowered; and
// every id minted afterwards is one the file never used.
func TestCountersBelowStoredIDs(t *testing.T) {
	const msg = `level=WARN msg="sqlstore: raised an id counter that was below the ids stored in the file (the counters table was edited, or restored from an older copy), so that no id is minted twice" path=PATH `
	for _, c := range []struct {
		name  string
		edit  []string
		want  map[string]int64 // the counters after Open
		log   []string         // each raised counter's attributes
		first []string         // the ids of a new Plugin, its Package, a run and an approval
	}{{
		name:  "every counter zero",
		edit:  []string{"UPDATE counters SET value = 0"},
		want:  map[string]int64{"plugin": 2, "package": 3, "run": 3, "approval": 4},
		log:   []string{"counter=plugin was=0 now=2", "counter=package was=0 now=3", "counter=run was=0 now=3", "counter=approval was=0 now=4"},
		first: []string{"new-3", "pkg-4", "run-4", "approval-5"},
	}, {
		name:  "restored from an older copy",
		edit:  []string{"UPDATE counters SET value = 1 WHERE name IN ('plugin', 'package', 'run')"},
		want:  map[string]int64{"plugin": 2, "package": 3, "run": 3, "approval": 4},
		log:   []string{"counter=plugin was=1 now=2", "counter=package was=1 now=3", "counter=run was=1 now=3"},
		first: []string{"new-3", "pkg-4", "run-4", "approval-5"},
	}, {
		name:  "rows deleted",
		edit:  []string{"DELETE FROM counters WHERE name IN ('package', 'approval')"},
		want:  map[string]int64{"plugin": 2, "package": 3, "run": 3, "approval": 4},
		log:   []string{"counter=package was=missing now=3", "counter=approval was=missing now=4"},
		first: []string{"new-3", "pkg-4", "run-4", "approval-5"},
	}, {
		name:  "negative",
		edit:  []string{"UPDATE counters SET value = -7"},
		want:  map[string]int64{"plugin": 2, "package": 3, "run": 3, "approval": 4},
		log:   []string{"counter=plugin was=-7 now=2", "counter=package was=-7 now=3", "counter=run was=-7 now=3", "counter=approval was=-7 now=4"},
		first: []string{"new-3", "pkg-4", "run-4", "approval-5"},
	}, {
		// abc-2's latest attempt names approval-4, minted after approval-2.
		name:  "the approval counter below a latest attempt's",
		edit:  []string{"UPDATE counters SET value = 2 WHERE name = 'approval'"},
		want:  map[string]int64{"plugin": 2, "package": 3, "run": 3, "approval": 4},
		log:   []string{"counter=approval was=2 now=4"},
		first: []string{"new-3", "pkg-4", "run-4", "approval-5"},
	}, {
		// An older copy of the packages table: the Plugin still points at pkg-9.
		name:  "only a reference holds the highest id",
		edit:  []string{"UPDATE plugins SET next = 'pkg-9' WHERE id = 'clock-1'", "UPDATE counters SET value = 3 WHERE name = 'package'"},
		want:  map[string]int64{"plugin": 2, "package": 9, "run": 3, "approval": 4},
		log:   []string{"counter=package was=3 now=9"},
		first: []string{"new-3", "pkg-10", "run-4", "approval-5"},
	}, {
		// The row key and the id's number disagree: neither is minted again.
		name:  "an id's number above its row",
		edit:  []string{"UPDATE plugins SET id = 'abc-6' WHERE id = 'abc-2'"},
		want:  map[string]int64{"plugin": 6, "package": 3, "run": 3, "approval": 4},
		log:   []string{"counter=plugin was=2 now=6"},
		first: []string{"new-7", "pkg-4", "run-4", "approval-5"},
	}, {
		name:  "above the stored ids",
		edit:  []string{"UPDATE counters SET value = value + 40"},
		want:  map[string]int64{"plugin": 42, "package": 43, "run": 43, "approval": 44},
		first: []string{"new-43", "pkg-44", "run-44", "approval-45"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			path, used := countersFile(t)
			rawExec(t, path, c.edit...)
			var logged bytes.Buffer
			s := open(t, path, &Options{Logger: logTo(&logged)})
			var want strings.Builder
			for _, l := range c.log {
				want.WriteString(strings.ReplaceAll(msg, "PATH", path) + l + "\n")
			}
			if logged.String() != want.String() {
				t.Errorf("log:\n%s\nwant:\n%s", logged.String(), want.String())
			}
			if !reflect.DeepEqual(s.counters, c.want) {
				t.Errorf("counters in memory after Open: %v, want %v", s.counters, c.want)
			}
			// Written in the opening transaction: on disk before any call.
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if got := fileCounters(t, path); !reflect.DeepEqual(got, c.want) {
				t.Errorf("counters in the file after Open: %v, want %v", got, c.want)
			}
			logged.Reset()
			s = open(t, path, &Options{Logger: logTo(&logged)})
			if logged.Len() != 0 {
				t.Errorf("a second Open raised again:\n%s", logged.String())
			}
			p, k, err := s.Define(bg, storetest.Def("s3", "new", ""))
			if err != nil {
				t.Fatalf("define after Open: %v", err)
			}
			run, err := s.Mint(bg, runner.CounterRun)
			if err != nil {
				t.Fatal(err)
			}
			appr, err := s.Mint(bg, runner.CounterApproval)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{p.ID, k.ID, run, appr}
			if !reflect.DeepEqual(got, c.first) {
				t.Fatalf("ids minted after Open: %v, want %v", got, c.first)
			}
			for _, id := range got {
				if used[id] {
					t.Errorf("%s was minted again", id)
				}
			}
			if _, _, err := s.Define(bg, storetest.Def("s3", "", p.ID)); err != nil {
				t.Fatalf("a second define after Open: %v", err)
			}
		})
	}
}

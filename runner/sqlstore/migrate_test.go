package sqlstore

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
)

// TestMigrateFromV1 opens a file written at schema version 1 (before Plugin.Running and
// the revocation log): its definitions are read back, and it is now at SchemaVersion.
func TestMigrateFromV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	a := storetest.Attempt("run-3", "pkg-2", "approval-2")
	aj, _ := json.Marshal(a)
	rawExec(t, path, migrations[0],
		"PRAGMA application_id = "+strconv.Itoa(applicationID), "PRAGMA user_version = 1",
		"INSERT INTO plugins (n, id, session, prefix, created, current, next, future, latest) VALUES (4, 'clock-4', 's1', 'clock', '2026-01-01T00:00:00Z', 'pkg-2', '', 1, '"+string(aj)+"')",
		"INSERT INTO packages (n, plugin, name, purpose, host, client, created) VALUES (2, 4, 'Clock', 'Shows the time.', 'return (ctx) => {}', NULL, '2026-01-01T00:00:00Z')",
		"INSERT INTO packages (n, plugin, name, purpose, host, client, created) VALUES (5, 4, 'Clock 2', 'Shows it better.', NULL, 'return {}', '2026-01-01T00:00:00Z')",
		"INSERT INTO grants (plugin, package, granted) VALUES (4, 5, '2026-01-01T00:00:00Z')",
		"UPDATE counters SET value = 4 WHERE name = 'plugin'", "UPDATE counters SET value = 5 WHERE name = 'package'",
		"UPDATE counters SET value = 3 WHERE name = 'run'", "UPDATE counters SET value = 2 WHERE name = 'approval'")
	s := open(t, path, nil)
	got, err := s.Plugin(bg, "clock-4")
	if err != nil {
		t.Fatal(err)
	}
	want := runner.Plugin{ID: "clock-4", Session: "s1", Current: "pkg-2", Latest: a, Restored: true,
		Grants: runner.Grants{Packages: []string{"pkg-5"}, Future: true},
		Packages: []runner.Package{{ID: "pkg-2", Name: "Clock", Purpose: "Shows the time.", Host: "return (ctx) => {}"},
			{ID: "pkg-5", Name: "Clock 2", Purpose: "Shows it better.", Client: "return {}"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("migrated plugin:\n%+v\nwant\n%+v", got, want)
	}
	p, k := storetest.MustDefine(t, s, storetest.Def("s1", "abc", ""))
	run, _ := s.Mint(bg, runner.CounterRun)
	if p.ID != "abc-5" || k.ID != "pkg-6" || run != "run-4" {
		t.Fatalf("ids after migration: %s %s %s, want abc-5 pkg-6 run-4", p.ID, k.ID, run)
	}
	storetest.MustUpdate(t, s, "clock-4", runner.Change{Running: ptr(true), Revoke: "pkg-5"})
	checkPragmas(t, s, map[string]string{"user_version": strconv.Itoa(SchemaVersion), "application_id": strconv.Itoa(applicationID),
		"journal_mode": "wal", "foreign_keys": "1", "locking_mode": "exclusive", "synchronous": "2"})
	var revoked int
	if err := s.conn.QueryRowContext(bg, "SELECT count(*) FROM revocations WHERE package = 'pkg-5'").Scan(&revoked); err != nil || revoked != 1 {
		t.Fatalf("revocation log: %d rows (%v), want 1", revoked, err)
	}
}

func checkPragmas(t *testing.T, s *Store, want map[string]string) {
	t.Helper()
	for name, w := range want {
		var v string
		if err := s.conn.QueryRowContext(bg, "PRAGMA "+name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != w {
			t.Errorf("PRAGMA %s = %q, want %q", name, v, w)
		}
	}
}

package sqlstore

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
)

// rawExec runs statements on a database file with the bare driver.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestOpenRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, path string)
		is    error
		want  string // PATH stands for the file
	}{{
		name:  "not sqlite",
		setup: func(t *testing.T, path string) { write(t, path, []byte("{\"plugins\": []}\n")) },
		is:    ErrRefused,
		want:  "sqlstore: the file is not a usable definition store: PATH is not a SQLite database (it does not start with the SQLite header); it is corrupt or another kind of file. Move it aside (it is left as it was) to start an empty definition store there, or give the runtime another path",
	}, {
		name: "corrupt",
		setup: func(t *testing.T, path string) {
			write(t, path, append([]byte("SQLite format 3\x00"), []byte(strings.Repeat("\xde\xad\xbe\xef", 1020))...))
		},
		is:   ErrRefused,
		want: "sqlstore: the file is not a usable definition store: PATH is corrupt (file is not a database (26)); it is left as it was. Restore it from a backup, or move it aside to start an empty definition store there",
	}, {
		name:  "another application",
		setup: func(t *testing.T, path string) { rawExec(t, path, "CREATE TABLE notes (body TEXT)") },
		is:    ErrRefused,
		want:  "sqlstore: the file is not a usable definition store: PATH is a SQLite database of another application (application_id 0x0, 1 tables), not a cordis definition store; it is left as it was. Give the runtime another path",
	}, {
		name: "newer schema",
		setup: func(t *testing.T, path string) {
			s, err := Open(bg, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			rawExec(t, path, "PRAGMA user_version = 7")
		},
		is:   ErrRefused,
		want: "sqlstore: the file is not a usable definition store: PATH has schema version 7, newer than the 2 this build of cordiskit knows; it was written by a newer cordiskit. Upgrade this program, or open a copy of the file made before the upgrade; the file is left as it was",
	}} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "definitions.db")
			c.setup(t, path)
			before, _ := os.ReadFile(path)
			s, err := Open(bg, path, nil)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded, want a refusal")
			}
			if want := strings.ReplaceAll(c.want, "PATH", path); err.Error() != want || !errors.Is(err, c.is) {
				t.Fatalf("Open error:\n%v\nwant:\n%s", err, want)
			}
			if after, _ := os.ReadFile(path); !reflect.DeepEqual(after, before) {
				t.Fatal("a refused Open changed the file")
			}
		})
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestLockedInProcess: a second Open of an open file is refused until the first closes.
func TestLockedInProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	s := open(t, path, nil)
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
	s2, err := Open(bg, path, nil)
	want := "sqlstore: the definition store is in use: " + path + " is held by another open definition store (another process running this runtime, or a second Open in this one): database is locked (5) (SQLITE_BUSY). Stop the other process or close its Store first, or give this one its own file"
	if err == nil {
		s2.Close()
		t.Fatal("a second Open of an open file succeeded")
	}
	if err.Error() != want || !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open:\n%v\nwant:\n%s", err, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s3 := open(t, path, nil)
	if _, err := s3.Plugin(bg, "clock-1"); err != nil {
		t.Fatalf("after the first Store closed: %v", err)
	}
}

// TestFailedWrite fills the file (SQLite's max_page_count, as a full disk would): every
// write fails with the reason and changes nothing, in memory or on disk.
func TestFailedWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	s := open(t, path, nil)
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
	for _, c := range []runner.Counter{runner.CounterRun, runner.CounterApproval} {
		if _, err := s.Mint(bg, c); err != nil {
			t.Fatal(err)
		}
	}
	var pages int64
	if err := s.conn.QueryRowContext(bg, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.conn.ExecContext(bg, "PRAGMA max_page_count = "+itoa(pages)); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 64<<10)
	before, _ := s.Plugins(bg, "")
	fails := []struct {
		name string
		call func() error
	}{
		{"define new", func() error {
			d := storetest.Def("s1", "big", "")
			d.Host = big
			_, _, err := s.Define(bg, d)
			return err
		}},
		{"define existing", func() error {
			d := storetest.Def("s1", "", "clock-1")
			d.Client = big
			_, _, err := s.Define(bg, d)
			return err
		}},
		{"update", func() error {
			a := storetest.Attempt("run-1", "pkg-1", "approval-1")
			a.Error.Stack = big
			_, err := s.Update(bg, "clock-1", runner.Change{Attempt: a, Current: ptr("pkg-1")})
			return err
		}},
	}
	for _, f := range fails {
		err := f.call()
		var we *WriteError
		if !errors.As(err, &we) || !strings.Contains(err.Error(), "database or disk is full") ||
			!strings.HasSuffix(err.Error(), "; nothing was changed. The disk (or the file's size limit) is full: free space, then try the call again") {
			t.Fatalf("%s: %v, want a WriteError that says the disk is full and nothing changed", f.name, err)
		}
	}
	if after, _ := s.Plugins(bg, ""); !reflect.DeepEqual(after, before) {
		t.Fatalf("failed writes changed the registry: %+v, was %+v", after, before)
	}
	if _, err := s.conn.ExecContext(bg, "PRAGMA max_page_count = 4294967294"); err != nil {
		t.Fatal(err)
	}
	// No number was consumed by the failures, and the file holds what memory holds.
	p, k := storetest.MustDefine(t, s, storetest.Def("s1", "abc", ""))
	run, _ := s.Mint(bg, runner.CounterRun)
	if got, want := []string{p.ID, k.ID, run}, []string{"abc-2", "pkg-2", "run-2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ids after the failures: %v, want %v", got, want)
	}
	s.Close()
	s2 := open(t, path, nil)
	got, _ := s2.Plugin(bg, "clock-1")
	if got.Current != "" || got.Latest != nil || len(got.Packages) != 1 {
		t.Fatalf("clock-1 on disk after failed writes: %+v", got)
	}
}

func ptr[T any](v T) *T { return &v }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

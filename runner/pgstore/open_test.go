package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
	"github.com/jackc/pgx/v5"
)

const secret = "s3cret-Pw"

// TestUnreachableNamesTheDSNWithoutItsPassword: a server that is not there is refused
// with ErrUnreachable, an error that names the DSN, with its password masked, in every
// form a DSN takes.
func TestUnreachableNamesTheDSNWithoutItsPassword(t *testing.T) {
	dir := t.TempDir() // no server's socket in it
	for _, dsn := range []string{
		"postgres://cordis:" + secret + "@127.0.0.1:1/defs?connect_timeout=5",
		"postgresql://cordis:" + secret + "@/defs?host=" + dir,
		"postgres://cordis@/defs?host=" + dir + "&password=" + secret,
		"host=" + dir + " user=cordis password=" + secret + " dbname=defs",
		"host=" + dir + " user=cordis password='" + secret + " x' dbname=defs",
	} {
		_, err := Open(bg, dsn, nil)
		if !errors.Is(err, ErrUnreachable) {
			t.Fatalf("Open(%s) = %v, want ErrUnreachable", Redact(dsn), err)
		}
		msg := err.Error()
		if strings.Contains(msg, secret) || !strings.Contains(msg, Redact(dsn)) || !strings.Contains(msg, mask) {
			t.Errorf("Open's error\n%s\nmust name the DSN as %s, without its password", msg, Redact(dsn))
		}
	}
}

// TestInvalidDSN: a DSN that does not parse is refused without repeating its password.
func TestInvalidDSN(t *testing.T) {
	for _, dsn := range []string{
		"postgres://cordis:" + secret + "@host:notaport/defs",
		"postgres://cordis:" + secret + "@host/defs?sslmode=sometimes",
		"host=h password=" + secret + " sslmode=sometimes",
	} {
		_, err := Open(bg, dsn, nil)
		if !errors.Is(err, ErrInvalidDSN) || strings.Contains(err.Error(), secret) {
			t.Errorf("Open(%s) = %v, want ErrInvalidDSN without the password", Redact(dsn), err)
		}
	}
}

func TestRedact(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://u:" + secret + "@h:5432/db?sslmode=disable": "postgres://u:xxxxx@h:5432/db?sslmode=disable",
		"postgres://u@h/db?password=" + secret:                  "postgres://u@h/db?password=xxxxx",
		"postgres://u@h/db":                                     "postgres://u@h/db",
		"host=h password=" + secret + " dbname=db":              "host=h password=xxxxx dbname=db",
		"host=h password = '" + secret + " \\' x' dbname=db":    "host=h password=xxxxx dbname=db",
		"postgres://u:" + secret + "@h:bad port/db":             "postgres://xxxxx@h:bad port/db",
		"host=h sslpassword=" + secret + " password=" + secret:  "host=h sslpassword=xxxxx password=xxxxx",
	} {
		if got := Redact(dsn); got != want {
			t.Errorf("Redact(%q) = %q, want %q", dsn, got, want)
		}
	}
}

// execSQL runs sql on dsn's database.
func execSQL(t testing.TB, dsn string, sql ...string) {
	t.Helper()
	conn, err := pgx.Connect(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(bg)
	for _, q := range sql {
		if _, err := conn.Exec(bg, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func queryInt(t testing.TB, dsn, sql string) int64 {
	t.Helper()
	conn, err := pgx.Connect(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(bg)
	var v int64
	if err := conn.QueryRow(bg, sql).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// TestRefusesNewerSchema: a store written by a newer build is refused, and left as it was.
func TestRefusesNewerSchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, nil)
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
	execSQL(t, dsn, "UPDATE cordis.store_version SET version = 7")
	_, err := Open(bg, dsn, nil)
	want := fmt.Sprintf("schema version 7, newer than the %d this build of cordiskit knows", SchemaVersion)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), Redact(dsn)) {
		t.Fatalf("Open of a newer store = %v, want ErrRefused saying %q and naming the DSN", err, want)
	}
	if v := queryInt(t, dsn, "SELECT version FROM cordis.store_version"); v != 7 {
		t.Fatalf("the refused store's version is now %d", v)
	}
	if n := queryInt(t, dsn, "SELECT count(*) FROM cordis.plugins"); n != 1 {
		t.Fatalf("the refused store holds %d plugins, want its 1", n)
	}
}

// TestRefusesAnotherApplicationsSchema: a schema with tables that are not a store's is
// refused and left as it was; another schema of the same database is fine.
func TestRefusesAnotherApplicationsSchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	execSQL(t, dsn, "CREATE SCHEMA cordis", "CREATE TABLE cordis.plugins (x int)")
	_, err := Open(bg, dsn, nil)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "it is another application's") {
		t.Fatalf("Open over another application's schema = %v, want ErrRefused", err)
	}
	if n := queryInt(t, dsn, "SELECT count(*) FROM pg_tables WHERE schemaname = 'cordis'"); n != 1 {
		t.Fatalf("the refused schema now has %d tables, want its 1", n)
	}
	s := open(t, dsn, &Options{Schema: "defs"})
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
}

// TestSchemasApart: two stores in two schemas of one database share nothing, ids
// included.
func TestSchemasApart(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := open(t, dsn, &Options{Schema: "a"}), open(t, dsn, &Options{Schema: "Mixed Case"})
	storetest.MustDefine(t, a, storetest.Def("s1", "clock", ""))
	p, _ := storetest.MustDefine(t, b, storetest.Def("s1", "panel", ""))
	if p.ID != "panel-1" {
		t.Fatalf("the second schema's first Plugin is %s, want panel-1", p.ID)
	}
	if ps, _ := b.Plugins(bg, ""); len(ps) != 1 {
		t.Fatalf("schema %q sees %d plugins, want its 1", b.Schema(), len(ps))
	}
}

// TestMigrate runs the steps an older store lacks, once, in the opening transaction: a
// step that fails leaves the store at its version, with nothing of the failed run.
func TestMigrate(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, nil)
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
	migrateWith := func(steps []string) error {
		return pgx.BeginFunc(bg, s.pool, func(tx pgx.Tx) error { return s.migrate(bg, tx, steps) })
	}
	bad := append(migrations[:len(migrations):len(migrations)], "ALTER TABLE plugins ADD COLUMN note text", "ALTER TABLE no_such_table ADD COLUMN x int")
	err := migrateWith(bad)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("from version %d to %d", SchemaVersion+1, SchemaVersion+2)) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("a failing step: %v", err)
	}
	if v := queryInt(t, dsn, "SELECT version FROM cordis.store_version"); v != SchemaVersion {
		t.Fatalf("after a failed migration the version is %d, want %d", v, SchemaVersion)
	}
	if n := queryInt(t, dsn, "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'cordis' AND column_name = 'note'"); n != 0 {
		t.Fatal("the step before the failed one was kept")
	}
	good := bad[:len(bad)-1]
	for range 2 { // the second run finds nothing to do
		if err := migrateWith(good); err != nil {
			t.Fatal(err)
		}
	}
	if v := queryInt(t, dsn, "SELECT version FROM cordis.store_version"); v != int64(len(good)) {
		t.Fatalf("after migrating the version is %d, want %d", v, len(good))
	}
	if _, err := s.Plugin(bg, "clock-1"); err != nil {
		t.Fatalf("the Plugin stored before the migration: %v", err)
	}
}

// TestRaisesCounters: counters set back below the stored ids (or deleted) are raised at
// Open, logged once, and ids continue after the highest stored.
func TestRaisesCounters(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, nil)
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
	storetest.MustDefine(t, s, storetest.Def("s1", "", "clock-1"))
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Attempt: storetest.MintAttempt(t, s, "pkg-2")})
	s.Close()
	execSQL(t, dsn, "UPDATE cordis.counters SET value = 0 WHERE name IN ('plugin', 'run')", "DELETE FROM cordis.counters WHERE name = 'package'")
	var log bytes.Buffer
	s = open(t, dsn, &Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	for _, want := range []string{"counter=plugin was=0 now=1", "counter=package was=missing now=2", "counter=run was=0 now=1"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
	if strings.Contains(log.String(), "counter=approval") {
		t.Errorf("the approval counter was raised though it was not behind:\n%s", log.String())
	}
	p, k := storetest.MustDefine(t, s, storetest.Def("s1", "abc", ""))
	run, _ := s.Mint(bg, runner.CounterRun)
	if p.ID != "abc-2" || k.ID != "pkg-3" || run != "run-2" {
		t.Fatalf("ids after the raise: %s %s %s, want abc-2 pkg-3 run-2", p.ID, k.ID, run)
	}
	log.Reset()
	open(t, dsn, &Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if log.Len() != 0 {
		t.Fatalf("a second Open raised counters again:\n%s", log.String())
	}
}

// TestRestoredAcrossStores: a Plugin reads as restored in every Store but the one that
// defined it, which sees another's change at once.
func TestRestoredAcrossStores(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := open(t, dsn, nil), open(t, dsn, nil)
	storetest.MustDefine(t, a, storetest.Def("s1", "clock", ""))
	pa, _ := a.Plugin(bg, "clock-1")
	pb, err := b.Plugin(bg, "clock-1")
	if err != nil || pa.Restored || !pb.Restored {
		t.Fatalf("Restored: %v in the defining Store, %v (%v) in the other; want false and true", pa.Restored, pb.Restored, err)
	}
	storetest.MustUpdate(t, b, "clock-1", runner.Change{Current: new("pkg-1")})
	if p, _ := a.Plugin(bg, "clock-1"); p.Current != "pkg-1" {
		t.Fatalf("a change made through one Store is not seen through another: current %q", p.Current)
	}
	if err := b.Remove(bg, "clock-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Plugin(bg, "clock-1"); !errors.Is(err, runner.ErrNotFound) {
		t.Fatalf("a Plugin removed through another Store: %v, want ErrNotFound", err)
	}
}

// TestClosed: calls on a closed Store are refused with ErrClosed.
func TestClosed(t *testing.T) {
	s, err := Open(bg, pgtest.DSN(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, _, err := s.Define(bg, storetest.Def("s1", "clock", "")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Define after Close = %v, want ErrClosed", err)
	}
	if _, err := s.Listings(bg, ""); !errors.Is(err, ErrClosed) {
		t.Fatalf("Listings after Close = %v, want ErrClosed", err)
	}
}

// TestCallsOutliveTheirCaller: a call whose caller's context is cancelled is still made,
// as with the other stores; the runner says what a cancelled tool call means.
func TestCallsOutliveTheirCaller(t *testing.T) {
	s := open(t, pgtest.DSN(t), nil)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, _, err := s.Define(ctx, storetest.Def("s1", "clock", "")); err != nil {
		t.Fatalf("Define with a cancelled context: %v", err)
	}
	if _, err := s.Plugin(ctx, "clock-1"); err != nil {
		t.Fatalf("Plugin with a cancelled context: %v", err)
	}
	if ls, err := s.Listings(ctx, "s1"); err != nil || len(ls) != 1 {
		t.Fatalf("Listings with a cancelled context: %v, %v", ls, err)
	}
}

// TestTimeout: a call held up past Options.Timeout (here by another transaction holding
// the Plugin's row) fails with an error that says so, and changes nothing.
func TestTimeout(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, &Options{Timeout: 300 * time.Millisecond})
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
	conn, err := pgx.Connect(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(bg)
	tx, err := conn.Begin(bg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(bg, "SELECT 1 FROM cordis.plugins WHERE id = 'clock-1' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Update(bg, "clock-1", runner.Change{Current: new("pkg-1")})
	var se *Error
	if !errors.As(err, &se) || !errors.Is(err, errTimedOut) || !strings.Contains(err.Error(), "longer than pgstore.Options.Timeout") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("Update held up past the timeout = %v, want a *pgstore.Error saying so", err)
	}
	if err := tx.Rollback(bg); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Plugin(bg, "clock-1"); err != nil || p.Current != "" {
		t.Fatalf("after the timed-out Update: current %q, %v; want unchanged", p.Current, err)
	}
}

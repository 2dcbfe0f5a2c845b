package pgtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) {
	if os.Getenv("PGTEST_CHILD") != "" {
		os.Exit(m.Run())
	}
	Main(m)
}

func query(t *testing.T, dsn, sql string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v string
	if err := conn.QueryRow(ctx, sql).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFreshDatabases: each DSN is a database of its own on one server, reached on a unix
// socket in the cluster's directory, and the server does not run as root.
func TestFreshDatabases(t *testing.T) {
	a, b := DSN(t), DSN(t)
	if a == b {
		t.Fatalf("two DSN calls gave one database: %s", a)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE only_in_a (x int)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if got := query(t, b, "SELECT count(*)::text FROM pg_tables WHERE tablename = 'only_in_a'"); got != "0" {
		t.Fatalf("a table made in one test database is in another: count %s", got)
	}
	if got := query(t, a, "SHOW listen_addresses"); got != "" {
		t.Fatalf("listen_addresses = %q, want '' (a unix socket only)", got)
	}
	if got := query(t, a, "SHOW unix_socket_directories"); got != Shared(t).dir {
		t.Fatalf("unix_socket_directories = %q, want the cluster's directory %s", got, Shared(t).dir)
	}
	if got := query(t, a, "SELECT current_user"); got == "root" {
		t.Fatalf("the server's superuser is root")
	}
}

// TestStopImmediateKeepsCommits: a server stopped as a crash keeps what was committed.
func TestStopImmediateKeepsCommits(t *testing.T) {
	ctx := context.Background()
	c := New(t)
	name, dsn, err := c.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (x text); INSERT INTO kept VALUES ('committed')"); err != nil {
		t.Fatal(err)
	}
	if err := c.StopImmediate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("a query on a stopped server succeeded")
	}
	conn.Close(ctx)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if got := query(t, dsn, "SELECT x FROM kept"); got != "committed" {
		t.Fatalf("after the restart: %q", got)
	}
	if err := c.DropDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
}

// TestCloseRemoves: Close stops the server and removes the directory.
func TestCloseRemoves(t *testing.T) {
	c, err := Start(context.Background())
	if err != nil {
		check(t, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s after Close: %v, want it gone", c.dir, err)
	}
}

// TestMissingPostgres: without the programs a test is skipped, and under CI=true failed.
func TestMissingPostgres(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") != "" {
		DSN(t)
		t.Fatal("DSN returned without PostgreSQL")
	}
	for _, c := range []struct{ ci, want string }{{"", "--- SKIP"}, {"true", "--- FAIL"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingPostgres$", "-test.v")
		cmd.Env = append(os.Environ(), "PGTEST_CHILD=1", "PG_BINDIR="+t.TempDir(), "CI="+c.ci)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), c.want) || !strings.Contains(string(out), "PostgreSQL's programs") {
			t.Errorf("CI=%q without PostgreSQL: want %s with the reason, got\n%s", c.ci, c.want, out)
		}
	}
}

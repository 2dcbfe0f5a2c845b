package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// A statsServer is a throwaway cluster of a test's own with pg_stat_statements loaded
// (PostgreSQL's contrib module, in Debian's postgresql package), counting planning time
// too: the server's own account of the statements a measurement made and their time.
type statsServer struct{ c *pgtest.Cluster }

func statsCluster(t testing.TB) *statsServer {
	t.Helper()
	c := pgtest.New(t)
	ctx := context.Background()
	// The library is loaded at the server's start; its settings are known after.
	admin(t, c, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
	if err := c.StopImmediate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	admin(t, c, "ALTER SYSTEM SET pg_stat_statements.track_planning = on", "SELECT pg_reload_conf()")
	return &statsServer{c: c}
}

// admin runs sql on c's maintenance database, as the superuser.
func admin(t testing.TB, c *pgtest.Cluster, sql ...string) {
	t.Helper()
	execSQL(t, c.DSN("postgres"), sql...)
}

// database creates a database with the pg_stat_statements extension and returns its DSN
// and its statistics.
func (s *statsServer) database(t testing.TB) (string, *statsDB) {
	t.Helper()
	name, dsn, err := s.c.CreateDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	execSQL(t, dsn, "CREATE EXTENSION pg_stat_statements")
	return dsn, &statsDB{dsn: dsn, name: name}
}

// statsDB reads pg_stat_statements for one database.
type statsDB struct{ dsn, name string }

// reset forgets the database's statements so far.
func (s *statsDB) reset(t testing.TB) {
	t.Helper()
	execSQL(t, s.dsn, "SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)")
}

// A stmtStat is one statement's row of pg_stat_statements.
type stmtStat struct {
	query  string
	calls  int64
	ms     float64 // execution and planning, in all
	meanMS float64 // execution and planning, per call
}

// stepStats is what the database's statements did since reset, without the
// measurement's own statements (those on pg_stat_*).
type stepStats struct {
	calls       int64
	totalMS     float64
	defineNewMS float64 // the mean of a new Plugin's define (defineNew)
	stmts       []stmtStat
}

func (s *statsDB) read(t testing.TB) *stepStats {
	t.Helper()
	conn, err := pgx.Connect(bg, s.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(bg)
	rows, err := conn.Query(bg, `SELECT query, calls, total_exec_time + total_plan_time FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat%'
		ORDER BY 3 DESC`)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (stmtStat, error) {
		var st stmtStat
		err := r.Scan(&st.query, &st.calls, &st.ms)
		if st.calls > 0 {
			st.meanMS = st.ms / float64(st.calls)
		}
		return st, err
	})
	if err != nil {
		t.Fatal(err)
	}
	out := &stepStats{stmts: stmts}
	for _, st := range stmts {
		out.calls += st.calls
		out.totalMS += st.ms
		if strings.Contains(st.query, "INSERT INTO plugins") { // constants read $n here
			out.defineNewMS = st.meanMS
		}
	}
	return out
}

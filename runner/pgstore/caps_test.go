package pgstore

import (
	"testing"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
	"github.com/jackc/pgx/v5"
)

// The conformance suite passes on a database whose default isolation is REPEATABLE
// READ: a define's count of its session's caps (storetest's CapsConcurrent) sees the
// defines that committed while it waited for the session's lock, as the store's
// connections run READ COMMITTED whatever the database's default (Open). (Without that,
// the caps hold here too, less cheaply: the counters' rows each define updates make the
// server abort a define whose snapshot is older than the last one's commit, and the
// store makes it again.)
func TestConformanceUnderRepeatableRead(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the suite runs once, on the server's defaults (TestConformance)")
	}
	storetest.Run(t, func(t *testing.T) runner.Store {
		dsn := pgtest.DSN(t)
		conn, err := pgx.Connect(bg, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(bg)
		var db string
		if err := conn.QueryRow(bg, "SELECT current_database()").Scan(&db); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(bg, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" SET default_transaction_isolation = 'repeatable read'"); err != nil {
			t.Fatal(err)
		}
		return open(t, dsn, nil)
	})
}

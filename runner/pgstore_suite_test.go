package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/pgstore"
)

// pgStore is the value of runner.StoreEnvForTests that runs the suite on PostgreSQL.
const pgStore = "pg"

func init() {
	if os.Getenv(runner.StoreEnvForTests) != pgStore {
		return
	}
	// One database for the child run, a schema of its own for each store: a schema is
	// made in a fraction of the time a database is.
	var (
		once    sync.Once
		dsn     string
		schemas atomic.Int64
	)
	runner.SetTestStore(func(t *testing.T) runner.Store {
		once.Do(func() {
			var err error
			if _, dsn, err = pgtest.Shared(t).CreateDatabase(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
		if dsn == "" {
			t.Fatal("the suite's database could not be created (see the first test that failed)")
		}
		s, err := pgstore.Open(context.Background(), dsn, &pgstore.Options{Schema: fmt.Sprintf("t%d", schemas.Add(1))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}

// TestSuiteOnPGStore re-runs every test of the package, in a child process, with each
// runner on a PostgreSQL store of its own (a fresh schema of a throwaway cluster's
// database).
func TestSuiteOnPGStore(t *testing.T) {
	if os.Getenv(runner.StoreEnvForTests) != "" {
		t.Skip("this is the child run")
	}
	if testing.Short() {
		t.Skip("-short: the suite runs on the memory store only")
	}
	c := pgtest.New(t)
	cmd := exec.Command(os.Args[0], "-test.run=.", "-test.count=1")
	cmd.Env = append(os.Environ(), runner.StoreEnvForTests+"="+pgStore, c.Env())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the runner's suite on the PostgreSQL store failed (%v):\n%s", err, out.String())
	}
}

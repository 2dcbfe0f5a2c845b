package runner

import (
	"os"
	"testing"
)

// The runner's tests run against the memory store, and once more, in a child process,
// against the durable SQL store: sqlstore imports runner, so only the external test
// package (sqlstore_suite_test.go) can open one, and it sets this hook when
// storeEnv names the SQL store.
var testStore func(t *testing.T) Store

// storeEnv selects the store the child process runs the suite against.
const storeEnv = "CORDIS_RUNNER_TEST_STORE"

// TestSuiteOnSQLStore re-runs every other test of the package with the SQL store.
func TestSuiteOnSQLStore(t *testing.T) {
	if os.Getenv(storeEnv) != "" {
		t.Skip("this is the child run")
	}
	if testing.Short() {
		t.Skip("-short: the suite runs on the memory store only")
	}
	runSuiteOnSQLStore(t)
}

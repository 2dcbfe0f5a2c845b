package runner_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/sqlstore"
)

func init() {
	if os.Getenv(runner.StoreEnvForTests) != "sql" {
		return
	}
	runner.SetTestStore(func(t *testing.T) runner.Store {
		s, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "definitions.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}

// runSuite is called by TestSuiteOnSQLStore (through runner.RunSuiteOnSQLStore).
func runSuite(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=.", "-test.count=1")
	cmd.Env = append(os.Environ(), runner.StoreEnvForTests+"=sql")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the runner's suite on the SQL store failed (%v):\n%s", err, out.String())
	}
}

func init() { runner.RunSuiteHook = runSuite }

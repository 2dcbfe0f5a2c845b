package childtest_test

import (
	"os"
	"testing"

	"github.com/cordiskit/cordiskit/internal/childtest"
)

// TestChildRuns checks the child really runs the body: it writes a marker file that the
// parent then reads.
func TestChildRuns(t *testing.T) {
	marker := os.Getenv("CHILDTEST_MARKER")
	if marker == "" {
		marker = t.TempDir() + "/ran"
		t.Setenv("CHILDTEST_MARKER", marker)
	}
	if childtest.Parent(t) {
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("the child did not run the test body: %v", err)
		}
		return
	}
	if err := os.WriteFile(marker, []byte("ok"), 0o600); err != nil {
		t.Fatal(err)
	}
}

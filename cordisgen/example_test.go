package cordisgen_test

import (
	"context"
	"testing"

	"github.com/cordiskit/cordiskit/cordisgen"
)

// A module's freshness test, in the package that holds its //go:generate line: it fails
// with the diff and the command to run when anything generated is stale.
func ExampleVerify() {
	var t *testing.T // the test's *testing.T
	rep, err := cordisgen.Verify(context.Background(), ".", "./...")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Errorf("generated files are stale:\n%s", rep)
	}
}

package main

import (
	"context"
	"slices"
	"testing"

	"github.com/cordiskit/cordiskit/cordisgen"
)

// TestGeneratedFresh re-runs the //go:generate line of this directory in memory, as
// verify-cordis-api does, and fails with a diff when cordisapi/ or docs/ would change:
// the same check as go generate followed by git diff --exit-code, without writing. It
// uses only the public cordisgen package, as a downstream module's test would.
func TestGeneratedFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages with go list; skipped with -short")
	}
	rep, err := cordisgen.Verify(context.Background(), ".", "./...")
	if err != nil {
		t.Fatalf("verify-cordis-api ./... in examples/harness: %v", err)
	}
	if !rep.OK() {
		t.Errorf("generated files are stale; run go generate ./examples/harness:\n%s", rep)
	}
	want := map[string]bool{
		"cordisapi/catalog_gen.go":    true,
		"cordisapi/facade_gen.go":     true,
		"docs/events-and-services.md": true,
		"docs/tool-catalog.md":        true,
	}
	seen := append(slices.Clone(rep.Fresh), rep.Missing...)
	for f := range rep.Stale {
		seen = append(seen, f)
	}
	for _, f := range seen {
		delete(want, f)
	}
	for f := range want {
		t.Errorf("%s was not checked: is the //go:generate line in main.go still there?", f)
	}
}

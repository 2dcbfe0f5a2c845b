package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordiskit/cordiskit/internal/gen"
)

// TestGeneratedFresh re-runs the //go:generate line of this directory in memory, as
// verify-cordis-api does, and fails with a diff when cordisapi/ or docs/ would change:
// the same check as go generate followed by git diff --exit-code, without writing.
func TestGeneratedFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages with go list; skipped with -short")
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := gen.Verify(context.Background(), cwd, []string{"./..."}, os.Environ())
	if err != nil {
		t.Fatalf("verify-cordis-api ./... in examples/harness: %v", err)
	}
	if !rep.OK() {
		var b bytes.Buffer
		rep.Print(&b)
		t.Errorf("generated files are stale; run go generate ./examples/harness:\n%s", b.String())
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
		delete(want, filepath.ToSlash(f))
	}
	for f := range want {
		t.Errorf("%s was not checked: is the //go:generate line in main.go still there?", f)
	}
}

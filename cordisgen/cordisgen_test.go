package cordisgen_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/cordiskit/cordiskit/cordisgen"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const agentGo = `// Package agent declares the runtime's events.
package agent

import "github.com/cordiskit/cordiskit/kit"

// Hello is emitted on hello.
var Hello = kit.NewEvent[HelloEvent]("rt/hello")

// HelloEvent is Hello's payload.
type HelloEvent struct {
	// Name is who says hello.
	Name string
}
`

// writeModule lays out a throwaway module that uses this repository through a replace
// directive, with the //go:generate line in main.go, and makes the go command work
// offline on it.
func writeModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module example.com/rt\n\ngo 1.26.0\n\nrequire github.com/cordiskit/cordiskit v0.0.0\n\n" +
			"replace github.com/cordiskit/cordiskit => " + root + "\n",
		"go.sum":         string(sum),
		"main.go":        "// Command rt runs the runtime.\npackage main\n\n//go:generate go tool gen-cordis-api -out ./cordisapi -docs ./docs ./...\n\nfunc main() {}\n",
		"agent/agent.go": agentGo,
	} {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOTOOLCHAIN", "local")
	return dir
}

// TestGenerateVerify drives a module through what its freshness test sees: missing
// files before the first generation, fresh after Generate and Write, stale with a diff
// and the fix after a doc comment changes.
func TestGenerateVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages with go list; skipped with -short")
	}
	ctx := context.Background()
	dir := writeModule(t)
	generated := []string{"cordisapi/catalog_gen.go", "docs/events-and-services.md", "docs/tool-catalog.md"}

	rep, err := cordisgen.Verify(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || !slices.Equal(rep.Missing, generated) || !slices.Equal(rep.Fix, []string{"go generate ."}) {
		t.Errorf("before the first generation: OK %v, missing %q, fix %q; want every file missing and go generate .", rep.OK(), rep.Missing, rep.Fix)
	}
	if s := rep.String(); !strings.Contains(s, "missing: cordisapi/catalog_gen.go") || !strings.Contains(s, "To fix, run:\n\tgo generate .") {
		t.Errorf("report text:\n%s", s)
	}

	files, err := cordisgen.Generate(ctx, &cordisgen.Config{Dir: dir, Patterns: []string{"./..."}, Out: "./cordisapi", Docs: "./docs"})
	if err != nil {
		t.Fatal(err)
	}
	if written, err := cordisgen.Write(dir, files); err != nil || !slices.Equal(written, generated) {
		t.Fatalf("Write = %q, %v; want %q", written, err, generated)
	}
	if rep, err = cordisgen.Verify(ctx, dir, "./..."); err != nil || !rep.OK() || !slices.Equal(rep.Fresh, generated) {
		t.Fatalf("after generating: %v, %v, fresh %q", err, rep, rep.Fresh)
	}

	edited := strings.Replace(agentGo, "Hello is emitted on hello.", "Hello is emitted when someone says hello.", 1)
	if err := os.WriteFile(filepath.Join(dir, "agent", "agent.go"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = cordisgen.Verify(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	diff := string(rep.Stale["cordisapi/catalog_gen.go"])
	if rep.OK() || !strings.Contains(diff, "+\tDoc:") || !strings.Contains(diff, "when someone says hello") {
		t.Errorf("after editing a doc comment: OK %v, catalog diff:\n%s", rep.OK(), diff)
	}
	if s := rep.String(); !strings.Contains(s, "stale: cordisapi/catalog_gen.go") || !strings.Contains(s, "go generate .") {
		t.Errorf("report text:\n%s", s)
	}
}

func TestGenerateReportsProblems(t *testing.T) {
	_, err := cordisgen.Generate(context.Background(), &cordisgen.Config{Patterns: []string{"/abs/path"}})
	if err == nil || !strings.Contains(err.Error(), "/abs/path is an absolute path: use a path relative to the directory the command runs in") {
		t.Errorf("Generate with an absolute pattern: %v", err)
	}
}

// TestRuntimeDoesNotImportGenerator checks the import graph the package doc promises: a
// runtime built on the kit, the toolset and its generated package links neither this
// package nor what the generator needs (go/packages, jennifer).
func TestRuntimeDoesNotImportGenerator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-deps", "../kit/...", "../sandbox", "../catalog", "../generated", "../toolset/...", "../invoke", "../mcpkit", "../examples/harness").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/cordiskit/cordiskit/toolset") || !slices.Contains(deps, "github.com/dop251/goja") {
		t.Fatalf("go list -deps does not list the runtime's own packages: %q", deps)
	}
	for _, dep := range deps {
		for _, banned := range []string{"github.com/cordiskit/cordiskit/cordisgen", "github.com/cordiskit/cordiskit/internal/gen", "github.com/cordiskit/cordiskit/catalog/scan", "golang.org/x/tools/", "github.com/dave/jennifer"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("a runtime package depends on %s", dep)
			}
		}
	}
}

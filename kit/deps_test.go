package kit_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestKitImportsOnlyStd checks the promise of the layout: every package under kit/ is
// built on the standard library alone, so a runtime core links no goja, MCP SDK or
// generator. The sandbox, the toolset and the adapters sit beside kit/, not in it.
func TestKitImportsOnlyStd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/cordiskit/cordiskit/kit") {
		t.Fatalf("go list -deps ./... does not list kit itself: %q", deps)
	}
	for _, dep := range deps {
		if dep != "github.com/cordiskit/cordiskit/kit" && !strings.HasPrefix(dep, "github.com/cordiskit/cordiskit/kit/") {
			t.Errorf("a package under kit/ depends on %s: kit/ holds only standard-library packages; move the code that needs it beside kit/ (as sandbox/, toolset/ and mcpkit/ are)", dep)
		}
	}
}

package cordiskit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnTopOfTheImportGraph checks the layout's promise: the assembly point imports the
// pieces and no piece imports it, so each stays usable alone; only the example runtime
// (and tests) build on it.
func TestOnTopOfTheImportGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "github.com/cordiskit/cordiskit/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const self = "github.com/cordiskit/cordiskit"
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		for _, imp := range imports {
			if imp == self && !strings.HasPrefix(pkg, self+"/examples/") {
				t.Errorf("%s imports the assembly point %s: a piece must not depend on what assembles it; take what it needs from the piece's own package", pkg, self)
			}
		}
	}
}

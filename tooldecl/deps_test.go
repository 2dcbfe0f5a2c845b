package tooldecl_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/cordiskit/cordiskit"

// under reports whether pkg is dir or a package below it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// TestToolsetAndRunnerAreSiblings checks the layout's promise: the mount manager and the
// dynamic-plugin runner stand on this package and neither depends on the other, in either
// direction, through any path, and the floor depends on neither: the tools' declarations
// (tooldecl/cordis, tooldecl/dynamic) live under the floor, so nothing points back up.
func TestToolsetAndRunnerAreSiblings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	toolset, runner, floor := module+"/toolset", module+"/runner", module+"/tooldecl"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, toolset+"/...", runner+"/...", floor+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var checked int
	for line := range strings.Lines(string(out)) {
		deps := strings.Fields(line)
		pkg := deps[0]
		var not []string // the folders pkg must not depend on
		switch {
		case under(pkg, toolset):
			not = []string{runner}
		case under(pkg, runner):
			not = []string{toolset}
		case under(pkg, floor):
			not = []string{toolset, runner}
		}
		checked++
		for _, dep := range deps[1:] {
			for _, dir := range not {
				if under(dep, dir) {
					t.Errorf("%s depends on %s: %s and %s are siblings on package tooldecl; move what both need into tooldecl (the tools' declarations into tooldecl/cordis or tooldecl/dynamic)", pkg, dep, strings.TrimPrefix(toolset, module+"/"), strings.TrimPrefix(runner, module+"/"))
				}
			}
		}
	}
	if checked < 3 {
		t.Fatalf("checked %d packages: go list did not list toolset, runner and tooldecl", checked)
	}
}

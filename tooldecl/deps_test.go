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
// direction, through any path. The two declaration packages, toolset/decl and
// runner/decl, are leaves on the floor (they import kit alone, and the generated core tier
// and this package read both); nothing else under one folder may be a dependency of a
// package under the other. This package itself depends on neither but those leaves.
func TestToolsetAndRunnerAreSiblings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	toolset, runner, floor := module+"/toolset", module+"/runner", module+"/tooldecl"
	leaves := map[string]bool{toolset + "/decl": true, runner + "/decl": true}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, toolset+"/...", runner+"/...", floor).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var checked int
	for line := range strings.Lines(string(out)) {
		deps := strings.Fields(line)
		pkg := deps[0]
		var not []string // the folders pkg must not depend on
		switch {
		case leaves[pkg]:
			continue
		case under(pkg, toolset):
			not = []string{runner}
		case under(pkg, runner):
			not = []string{toolset}
		case pkg == floor:
			not = []string{toolset, runner}
		}
		checked++
		for _, dep := range deps[1:] {
			for _, dir := range not {
				if under(dep, dir) && !leaves[dep] {
					t.Errorf("%s depends on %s: %s and %s are siblings on package tooldecl; move what both need into tooldecl (or into the declarations, %s/decl)", pkg, dep, strings.TrimPrefix(toolset, module+"/"), strings.TrimPrefix(runner, module+"/"), strings.TrimPrefix(dir, module+"/"))
				}
			}
		}
	}
	if checked < 3 {
		t.Fatalf("checked %d packages: go list did not list toolset, runner and tooldecl", checked)
	}
}

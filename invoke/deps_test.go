package invoke_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestInvokeDoesNotLinkMCP checks why this package exists apart from mcpkit: an agent
// loop that only wants Tools and Invoke does not link the MCP SDK.
func TestInvokeDoesNotLinkMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/cordiskit/cordiskit/kit") {
		t.Fatalf("go list -deps does not list kit: %q", deps)
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/modelcontextprotocol/") || dep == "github.com/cordiskit/cordiskit/mcpkit" {
			t.Errorf("invoke depends on %s; keep the MCP server's code in mcpkit", dep)
		}
	}
}

package mcpkit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/toolset"
)

// TestMountTooLargeForMCP is the whole path a model takes: over MCP, it mounts code that
// registers a tool too large to list, and one whose result is too large to send. Both are
// errors it can read and act on, and it keeps its cordis tools throughout.
func TestMountTooLargeForMCP(t *testing.T) {
	root := newRuntime(t)
	ts, err := toolset.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Dispose(context.Background()) })
	s, err := mcpkit.NewServer(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, protocols[0])
	cordis := []string{"cordis_inspect", "cordis_mount", "cordis_unmount"}

	r := c.call(t, "cordis_mount", map[string]any{"code": `return { name: 'wordy', apply(ctx) {
		ctx.tools.register({ name: 'wordy', description: '<'.repeat(3 << 20), execute: () => 1 }) } }`})
	if !r.IsError || !strings.Contains(text(r), `ctx.tools.register("wordy"): kit: tool "wordy": mcpkit: the tool's entry in the MCP tool list would be 3.0 MiB`) || !strings.Contains(text(r), "shorten its description") {
		t.Errorf("mounting a tool too large to list: isError=%v %.400q", r.IsError, text(r))
	}
	c.stillServesNames(t, cordis...)

	r = c.call(t, "cordis_mount", map[string]any{"code": `return { name: 'markup', apply(ctx) {
		ctx.tools.register({ name: 'markup', description: 'returns markup', execute: () => '<'.repeat(3 << 20) }) } }`})
	var mounted struct{ ID string }
	if err := json.Unmarshal([]byte(text(r)), &mounted); r.IsError || err != nil {
		t.Fatalf("mount markup: %s", text(r))
	}
	c.awaitList(t, "cordis_inspect", "cordis_mount", "cordis_unmount", "markup")
	r = c.call(t, "markup", nil)
	if !r.IsError || !strings.Contains(text(r), `tool "markup" returned a result too large to send: 18.0 MiB`) {
		t.Errorf("markup: isError=%v %.300q", r.IsError, text(r))
	}
	if r := c.call(t, "cordis_unmount", map[string]any{"id": mounted.ID}); r.IsError {
		t.Errorf("unmount after the large result: %s", text(r))
	}
	c.awaitList(t, cordis...)
}

// stillServesNames checks that tools/list still answers, with want.
func (c *client) stillServesNames(t *testing.T, want ...string) {
	t.Helper()
	if got := c.names(t); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("listed %v, want %v", got, want)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit"
	"github.com/cordiskit/cordiskit/examples/harness/agent"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient is a real MCP client connected in-process to the harness's MCP server, with a
// channel that receives every notifications/tools/list_changed.
type mcpClient struct {
	*mcp.ClientSession
	changed chan struct{}
}

// serveInMemory boots a harness, serves it over MCP (cordiskit.Runtime.ServeMCP) and
// connects a client through the SDK's in-memory transports. Everything is closed when
// the test ends.
func serveInMemory(t *testing.T) *mcpClient {
	t.Helper()
	ctx := context.Background()
	h, err := bootWith(t.TempDir(), t.TempDir(), quiet(), &cordiskit.Options{MCP: &mcpkit.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- h.cordis.ServeMCP(ctx, st) }()
	changed := make(chan struct{}, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "harness-test", Version: "v0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default: // a backlog already says "look again"
			}
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(errors.Join(err, h.Close(ctx), <-served))
	}
	t.Cleanup(func() { // Close ends the serve, which then returns nil
		if err := errors.Join(h.Close(ctx), <-served); err != nil {
			t.Error(err)
		}
		cs.Close()
	})
	return &mcpClient{cs, changed}
}

func (c *mcpClient) names(t *testing.T) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// awaitTool waits for list_changed notifications until the tool list has (or lacks) name.
func (c *mcpClient) awaitTool(t *testing.T, name string, present bool) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case <-c.changed:
		case <-deadline:
			t.Fatalf("no list_changed notification made %s present=%v; the tools are %v", name, present, c.names(t))
		}
		if slices.Contains(c.names(t), name) == present {
			return
		}
	}
}

// call calls a tool and fails the test on a protocol error: tool failures must be results.
func (c *mcpClient) call(t *testing.T, name string, args any) (text string, isError bool) {
	t.Helper()
	res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v; a tool failure must be an isError result", name, err)
	}
	var b strings.Builder
	for _, content := range res.Content {
		if tc, ok := content.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// mustCall calls a tool that must succeed.
func (c *mcpClient) mustCall(t *testing.T, name string, args any) string {
	t.Helper()
	text, isError := c.call(t, name, args)
	if isError {
		t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	return text
}

const shoutPlugin = `return {
  name: 'shouter',
  apply(ctx) {
    ctx.tools.register({
      name: 'shout',
      description: 'Upper-cases text.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute(args) { return { text: args.text.toUpperCase() } },
    })
  },
}`

const mutePlugin = `return {
  name: 'mute',
  apply(ctx) {
    ctx.on('tools/pre-execute', async (session, tool, input, next) => {
      if (tool === 'shout') return { allow: false, reason: 'shout is muted in session ' + session }
      return await next()
    })
  },
}`

func TestMCP(t *testing.T) {
	c := serveInMemory(t)

	cordis := []string{"cordis_define", "cordis_inspect", "cordis_inspect_list", "cordis_inspect_query", "cordis_inspect_self",
		"cordis_mount", "cordis_run", "cordis_stop", "cordis_undefine", "cordis_unmount"} // sorted, as names returns them
	res, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range cordis {
		i := slices.IndexFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == name })
		if i < 0 {
			t.Fatalf("%s is not listed; the tools are %v", name, c.names(t))
		}
		if tool := res.Tools[i]; tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("%s has no description or input schema: the generated schemas are not served", name)
		}
	}

	if text := c.mustCall(t, "cordis_inspect", map[string]any{"what": "events"}); !strings.Contains(text, "agent/turn-start") {
		t.Errorf("cordis_inspect what:events does not list the runtime's agent/turn-start:\n%s", text)
	}

	var mounted struct {
		ID    string `json:"id"`
		State string `json:"state"`
	}
	text := c.mustCall(t, "cordis_mount", map[string]any{"code": shoutPlugin})
	if err := json.Unmarshal([]byte(text), &mounted); err != nil || mounted.ID == "" {
		t.Fatalf("cordis_mount result %q does not carry an id: %v", text, err)
	}
	c.awaitTool(t, "shout", true)
	if text := c.mustCall(t, "shout", map[string]any{"text": "hello"}); !strings.Contains(text, "HELLO") {
		t.Errorf("shout returned %q, want HELLO in it", text)
	}

	// Calls over MCP pass the runtime's tools/pre-execute gate, in the client's session "mcp-N".
	var mute struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(c.mustCall(t, "cordis_mount", map[string]any{"code": mutePlugin})), &mute); err != nil {
		t.Fatal(err)
	}
	if text, isError := c.call(t, "shout", map[string]any{"text": "hello"}); !isError || !strings.Contains(text, "shout is muted in session mcp-") {
		t.Errorf("shout under a vetoing tools/pre-execute listener: isError=%v %q; want the veto's reason", isError, text)
	}
	c.mustCall(t, "cordis_unmount", map[string]any{"id": mute.ID})
	c.mustCall(t, "shout", map[string]any{"text": "again"})

	c.mustCall(t, "cordis_unmount", map[string]any{"id": mounted.ID})
	c.awaitTool(t, "shout", false)
	// A call of a tool that is no longer listed is the SDK's protocol error: it must not run.
	if res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: "shout", Arguments: map[string]any{"text": "gone"}}); err == nil && !res.IsError {
		t.Errorf("shout ran after its plugin was unmounted: %+v", res.Content)
	}
	if got := c.names(t); !slices.Equal(got, cordis) {
		t.Errorf("after unmounting everything the tools are %v, want %v", got, cordis)
	}
}

func TestMCPBadArguments(t *testing.T) {
	c := serveInMemory(t)
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"cordis_unmount", map[string]any{"id": 42}, "id"},
		{"cordis_unmount", map[string]any{}, "id"},
		{"cordis_mount", map[string]any{"code": true}, "code"},
		{"cordis_inspect", map[string]any{"what": "everything"}, "what"},
	} {
		text, isError := c.call(t, tc.tool, tc.args)
		if !isError {
			t.Errorf("%s(%v) succeeded; want a tool error naming %q", tc.tool, tc.args, tc.field)
			continue
		}
		if !strings.Contains(text, tc.field) {
			t.Errorf("%s(%v): the error does not name the field %q: %s", tc.tool, tc.args, tc.field, text)
		}
	}
}

// TestMCPCommand runs the mcp command itself, as a client would start it, with pipes for
// stdin and stdout: it serves until the client hangs up, then exits 0 after shutting the
// runtime down in the -dir work directory (which flushes kv to the -state directory).
func TestMCPCommand(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(context.Background(), []string{"mcp", "-dir", dir, "-state", state}, serverIn, serverOut, &stderr)
		serverOut.Close()
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "harness-test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "cordis_inspect", Arguments: map[string]any{"what": "tools"}})
	if err != nil || res.IsError {
		t.Fatalf("cordis_inspect over stdio: %v %+v", err, res)
	}
	cs.Close()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("harness mcp exited %d when the client hung up; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("harness mcp did not exit after the client hung up")
	}
	if _, err := os.Stat(filepath.Join(state, agent.KVFile)); err != nil {
		t.Errorf("the runtime did not save its state in the -state directory: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the runtime wrote into the work directory: %v", entries)
	}
}

// TestMCPCommandOneShot pipes the handshake and one tools/call into the mcp command and
// closes its input at once, as the README's restart walk-through does: the call is
// answered before the command exits.
func TestMCPCommandOneShot(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cordis_inspect","arguments":{"what":"tools"}}}
`
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"mcp", "-dir", t.TempDir(), "-state", t.TempDir()}, io.NopCloser(strings.NewReader(in)), &stdout, &stderr); code != 0 {
		t.Fatalf("harness mcp exited %d; stderr:\n%s", code, stderr.String())
	}
	for line := range strings.Lines(stdout.String()) {
		var m struct {
			ID     int                `json:"id"`
			Result mcp.CallToolResult `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID == 2 {
			if m.Result.IsError || len(m.Result.Content) == 0 {
				t.Errorf("cordis_inspect piped in: %s", line)
			}
			return
		}
	}
	t.Fatalf("harness mcp exited without answering the tools/call piped in before its input closed; it wrote:\n%s", stdout.String())
}

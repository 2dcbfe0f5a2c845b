package mcpkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocols are the two ways a client meets the server: the initialize handshake (every
// released client) and server/discover with subscriptions/listen (2026-07-28).
var protocols = []string{"2025-11-25", ""}

// client is a real mcp.Client connected in-process to s, with a channel that receives
// every notifications/tools/list_changed.
type client struct {
	*mcp.ClientSession
	changed chan struct{}
}

func connect(t *testing.T, s *mcpkit.Server, protocol string) *client {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 16)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return &client{cs, changed}
}

func (c *client) names(t *testing.T) []string {
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

// awaitList waits for list_changed notifications until the tool list is want.
func (c *client) awaitList(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case <-c.changed:
		case <-deadline:
			t.Fatalf("no list_changed notification brought the tool list to %v; it is %v", want, c.names(t))
		}
		if got := c.names(t); slices.Equal(got, want) {
			return
		}
	}
}

func (c *client) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: protocol error %v; tool failures must be isError results", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

type greetIn struct {
	Name string `json:"name"`
}

var greet = kit.NewTool[greetIn, string]("greet")

func greetTool() kit.Tool {
	return greet.Bind(kit.ToolSchema{
		Description:  "greets someone",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		OutputSchema: json.RawMessage(`{"type":"string"}`),
	}, func(ctx context.Context, in greetIn) (string, error) { return "hello, " + in.Name, nil })
}

func TestServer(t *testing.T) {
	for _, protocol := range protocols {
		t.Run("protocol="+protocol, func(t *testing.T) { testServer(t, protocol) })
	}
}

func testServer(t *testing.T, protocol string) {
	root := newRuntime(t)
	mount(t, root, "host", echo(), failing())
	s, err := mcpkit.NewServer(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, protocol)

	// The registry's tools are listed with their schemas as given.
	res, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 2 {
		t.Fatalf("listed %d tools, want 2", len(res.Tools))
	}
	for _, tool := range res.Tools {
		if tool.Name != "echo" {
			continue
		}
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		if !jsonEqual(in, echoInput) || !jsonEqual(out, echoOutput) || tool.Description != "test tool echo" {
			t.Errorf("echo listed as %s / %s / %q", in, out, tool.Description)
		}
	}

	// A call returns the tool's result as text and, with an output schema, structured.
	r := c.call(t, "echo", map[string]any{"text": "hi"})
	if r.IsError || text(r) != `{"text":"hi"}` {
		t.Fatalf("echo: isError=%v %q", r.IsError, text(r))
	}
	if sc, _ := json.Marshal(r.StructuredContent); string(sc) != `{"text":"hi"}` {
		t.Errorf("echo structured content: %s", sc)
	}

	// Bad arguments are a tool error naming the field; the tool does not run.
	for args, want := range map[string]string{
		`{"text":7}`:              `invalid argument "text"`,
		`{}`:                      `missing properties: ["text"]`,
		`{"text":"a","times":-1}`: `invalid argument "times"`,
	} {
		r := c.call(t, "echo", json.RawMessage(args))
		if !r.IsError || !strings.Contains(text(r), want) {
			t.Errorf("echo %s: isError=%v %q, want an error containing %q", args, r.IsError, text(r), want)
		}
	}

	// A tool's own error is a tool error too.
	if r := c.call(t, "fail", nil); !r.IsError || !strings.Contains(text(r), "disk is full") {
		t.Errorf("fail: isError=%v %q", r.IsError, text(r))
	}

	// A tool registered later is announced, listed and callable; a string result is text.
	greeter := mount(t, root, "dyn-1", greetTool())
	c.awaitList(t, "echo", "fail", "greet")
	if r := c.call(t, "greet", map[string]any{"name": "mcp"}); r.IsError || text(r) != "hello, mcp" {
		t.Errorf("greet: isError=%v %q", r.IsError, text(r))
	}

	// Removing it is announced too, and it is gone.
	greeter.Dispose(context.Background())
	c.awaitList(t, "echo", "fail")

	// Closing the adapter detaches it: the list empties and later tools are not served.
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.awaitList(t)
	mount(t, root, "late", greetTool())
	if got := c.names(t); len(got) != 0 {
		t.Errorf("a closed server lists %v", got)
	}
}

func TestServerSchemaHandling(t *testing.T) {
	root := newRuntime(t)
	mount(t, root, "host",
		rawTool("untyped", `{"properties":{"n":{"type":"integer"}}}`, "", func(map[string]any) (any, error) { return 1, nil }),
		rawTool("noschema", "", "", func(map[string]any) (any, error) { return 2, nil }),
		rawTool("scalar-in", `{"type":"string"}`, "", func(map[string]any) (any, error) { return 3, nil }),
		greetTool(),
	)
	s, err := mcpkit.NewServer(root, &mcpkit.Options{OmitNonObjectOutputSchemas: true})
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, protocols[0])
	res, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	if _, ok := got["scalar-in"]; ok || len(got) != 3 {
		t.Fatalf("served %v; want untyped, noschema and greet (a non-object input schema cannot be served)", keys(got))
	}
	for name, want := range map[string]string{
		"untyped":  `{"type":"object","properties":{"n":{"type":"integer"}}}`,
		"noschema": `{"type":"object"}`,
	} {
		if in, _ := json.Marshal(got[name].InputSchema); !jsonEqual(in, want) {
			t.Errorf("%s input schema %s, want %s", name, in, want)
		}
	}
	if got["greet"].OutputSchema != nil {
		t.Errorf("greet output schema %v survived OmitNonObjectOutputSchemas", got["greet"].OutputSchema)
	}
	r := c.call(t, "greet", map[string]any{"name": "x"})
	if r.IsError || r.StructuredContent != nil || text(r) != "hello, x" {
		t.Errorf("greet: %+v", r)
	}
	if r := c.call(t, "untyped", map[string]any{"n": "one"}); !r.IsError || !strings.Contains(text(r), `"n"`) {
		t.Errorf("untyped with a bad n: isError=%v %q", r.IsError, text(r))
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Serve runs one session and detaches when it ends.
func TestServe(t *testing.T) {
	root := newRuntime(t)
	mount(t, root, "host", echo())
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- mcpkit.Serve(ctx, root, st, nil) }()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "served"}})
	if err != nil || r.IsError || text(r) != `{"text":"served"}` {
		t.Fatalf("echo over Serve: %v %+v", err, r)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Serve returned %v, want context.Canceled", err)
	}
	cs.Close()
	for _, f := range root.Fibers() {
		if f.Name == "mcpkit" {
			t.Errorf("Serve left its plugin behind: %+v", f)
		}
	}
}

// Before sees every call first: it can rewrite the arguments (validated afterwards) or
// veto the call, which the client sees as a tool error.
func TestServerBefore(t *testing.T) {
	root := newRuntime(t)
	mount(t, root, "host", echo(), failing())
	s, err := mcpkit.NewServer(root, &mcpkit.Options{
		Before: func(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
			switch tool {
			case "fail":
				return nil, errors.New("policy: fail is not allowed here; use echo")
			case "echo":
				return json.RawMessage(strings.ReplaceAll(string(args), "secret", "[redacted]")), nil
			}
			return args, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, protocols[0])
	if r := c.call(t, "echo", map[string]any{"text": "a secret"}); r.IsError || text(r) != `{"text":"a [redacted]"}` {
		t.Errorf("rewritten echo: isError=%v %q", r.IsError, text(r))
	}
	if r := c.call(t, "fail", nil); !r.IsError || !strings.Contains(text(r), "policy: fail is not allowed") {
		t.Errorf("vetoed fail: isError=%v %q", r.IsError, text(r))
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func jsonEqual(a []byte, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

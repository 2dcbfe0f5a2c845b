package mcpkit_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeHTTP serves many clients over streamable HTTP, each its own session, and returns
// nil once its context is done, with the clients' event streams still open.
func TestServeHTTP(t *testing.T) {
	root := newRuntime(t)
	r, err := runner.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Dispose(context.Background()) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	serve, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mcpkit.ServeHTTP(serve, root, ln, &mcpkit.Options{Messages: r, HTTP: testTokens}) }()

	endpoint := "http://" + ln.Addr().String() + mcpkit.HTTPPath
	var clients []*mcp.ClientSession
	for range 2 {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "v0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{processToken, http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		clients = append(clients, cs)
	}
	call := func(cs *mcp.ClientSession, tool, args string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.IsError {
			t.Fatalf("%s: %s", tool, text(res))
		}
		return text(res)
	}
	call(clients[0], "cordis_define", clockDefine)
	if out := call(clients[0], "cordis_inspect_self", `{}`); !strings.Contains(out, `"pluginId":"clock-1"`) {
		t.Errorf("the defining client lists %s", out)
	}
	if out := call(clients[1], "cordis_inspect_self", `{}`); out != `{"mode":"plugins","plugins":[]}` {
		t.Errorf("the other client lists %s", out)
	}
	rows, err := r.Inventory(ctx)
	if err != nil || len(rows) != 1 || !strings.HasPrefix(rows[0].Session, "mcp-") {
		t.Fatalf("inventory %+v, %v", rows, err)
	}

	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeHTTP after its context ended: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeHTTP did not return after its context ended, with clients connected")
	}
	if _, err := clients[0].CallTool(ctx, &mcp.CallToolParams{Name: "cordis_inspect_self", Arguments: map[string]any{}}); err == nil {
		t.Error("a call after the shutdown succeeded")
	}
}

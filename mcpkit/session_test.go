package mcpkit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logClient is a real client that records the log notifications it receives.
type logClient struct {
	*mcp.ClientSession
	logs chan *mcp.LoggingMessageParams
	done chan struct{} // closed when its server session ended
}

func connectLogging(t *testing.T, s *mcpkit.Server) *logClient {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := make(chan *mcp.LoggingMessageParams, 16)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { logs <- r.Params },
	})
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	lc := &logClient{cs, logs, make(chan struct{})}
	go func() { ss.Wait(); close(lc.done) }()
	t.Cleanup(func() { lc.close() })
	return lc
}

func (c *logClient) close() {
	c.Close()
	<-c.done
}

func (c *logClient) tool(t *testing.T, name, args string) (string, bool) {
	t.Helper()
	res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	return text(res), res.IsError
}

// message waits for one log notification.
func (c *logClient) message(t *testing.T) map[string]any {
	t.Helper()
	select {
	case p := <-c.logs:
		if p.Level != mcpkit.MessageLevel || p.Logger != mcpkit.MessageLogger {
			t.Errorf("notification level %q logger %q", p.Level, p.Logger)
		}
		b, _ := json.Marshal(p.Data)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no log notification")
		return nil
	}
}

func (c *logClient) quiet(t *testing.T) {
	t.Helper()
	select {
	case p := <-c.logs:
		t.Errorf("unexpected notification %+v", p.Data)
	case <-time.After(50 * time.Millisecond):
	}
}

// newRunnerServer starts a runner and an MCP server forwarding its messages.
func newRunnerServer(t *testing.T) (*runner.Runner, *mcpkit.Server) {
	t.Helper()
	root := newRuntime(t)
	r, err := runner.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpkit.NewServer(root, &mcpkit.Options{Messages: r})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if err := s.Close(ctx); err != nil {
			t.Error(err)
		}
		if err := r.Dispose(ctx); err != nil {
			t.Error(err)
		}
	})
	return r, s
}

const clockDefine = `{"plugin":{"kind":"new","idPrefix":"clock"},"name":"Clock","purpose":"Shows the time.","code":{"host":"return (ctx) => {}"}}`

// Two MCP clients are two sessions: neither sees, runs or stops the other's Plugins.
func TestMCPClientsAreSessions(t *testing.T) {
	r, s := newRunnerServer(t)
	a, b := connectLogging(t, s), connectLogging(t, s)

	if out, isErr := a.tool(t, "cordis_define", clockDefine); isErr || !strings.Contains(out, `"pluginId":"clock-1"`) {
		t.Fatalf("a defines: %s", out)
	}
	if out, isErr := a.tool(t, "cordis_run", `{"pluginId":"clock-1","packageId":"pkg-1","mode":"run"}`); isErr || !strings.Contains(out, `"status":"running"`) {
		t.Fatalf("a runs: %s", out)
	}
	if out, _ := b.tool(t, "cordis_inspect_self", `{}`); out != `{"mode":"plugins","plugins":[]}` {
		t.Errorf("b lists %s", out)
	}
	missing := `no dynamic plugin "clock-1" in this session — it may have been removed (cordis_undefine), lost on a restart, or belong to another session. List yours with cordis_inspect_self; define a new one with cordis_define plugin:{kind:"new", idPrefix}`
	for _, c := range []struct{ tool, args string }{
		{"cordis_inspect_self", `{"pluginId":"clock-1"}`},
		{"cordis_run", `{"pluginId":"clock-1","packageId":"pkg-1","mode":"run"}`},
		{"cordis_stop", `{"pluginId":"clock-1"}`},
		{"cordis_undefine", `{"pluginId":"clock-1"}`},
		{"cordis_define", `{"plugin":{"kind":"existing","pluginId":"clock-1"},"name":"X","purpose":"Y.","code":{"host":"return () => {}"}}`},
	} {
		if out, isErr := b.tool(t, c.tool, c.args); !isErr || out != missing {
			t.Errorf("b %s: %v %s", c.tool, isErr, out)
		}
	}
	if out, _ := a.tool(t, "cordis_inspect_self", `{"pluginId":"clock-1"}`); !strings.Contains(out, `"state":"running"`) {
		t.Errorf("a's plugin after b's attempts: %s", out)
	}
	rows, err := r.Inventory(context.Background())
	if err != nil || len(rows) != 1 || !strings.HasPrefix(rows[0].AgentID, "mcp-") {
		t.Fatalf("inventory %+v, %v", rows, err)
	}
}

// A session's messages reach its own client once it enables logging — first those kept
// before — and no other client; after the client goes they are kept again.
func TestMCPForwardsMessagesToTheOwningClient(t *testing.T) {
	r, s := newRunnerServer(t)
	a, b := connectLogging(t, s), connectLogging(t, s)
	ctx := context.Background()
	if err := b.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, isErr := a.tool(t, "cordis_define", clockDefine); isErr {
		t.Fatal("define failed")
	}
	rows, _ := r.Inventory(ctx)
	session := rows[0].AgentID
	stop := func() {
		t.Helper()
		if err := r.StopFromPanel(ctx, runner.PanelPluginArgs{AgentID: session, PluginID: "clock-1"}); err != nil {
			t.Fatal(err)
		}
	}
	stop() // a has not enabled logging: kept
	if kept := r.Messages(session); len(kept) != 1 {
		t.Fatalf("kept %d messages", len(kept))
	}
	if err := a.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "notice"}); err != nil {
		t.Fatal(err)
	}
	want := "The user stopped clock-1 from the Cordis panel; its Packages remain. currentPackageId is none."
	if m := a.message(t); m["kind"] != "inject" || m["pluginId"] != "clock-1" || m["text"] != want {
		t.Errorf("kept message = %v", m)
	}
	stop()
	if m := a.message(t); m["text"] != want {
		t.Errorf("live message = %v", m)
	}
	if kept := r.Messages(session); len(kept) != 0 {
		t.Errorf("still kept: %v", kept)
	}
	b.quiet(t)

	// A level above notice turns forwarding off again: messages are kept.
	if err := a.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	stop()
	if kept := r.Messages(session); len(kept) != 1 {
		t.Errorf("kept %d messages after level error", len(kept))
	}
	a.quiet(t)

	// A client that enabled logging and goes: its session's messages are kept again.
	if err := a.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	a.message(t)
	a.close()
	deadline := time.Now().Add(5 * time.Second)
	for len(r.Messages(session)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("a message for a session whose client went was not kept")
		}
		stop()
		time.Sleep(10 * time.Millisecond)
	}
}

// The neutral Invoker names the session of a call.
func TestInvokeSession(t *testing.T) {
	root := newRuntime(t)
	r, err := runner.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Dispose(context.Background()) })
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		t.Fatal(err)
	}
	defer inv.Close(context.Background())
	ctx := context.Background()
	if _, err := inv.InvokeSession(ctx, "alice", "cordis_define", json.RawMessage(clockDefine)); err != nil {
		t.Fatal(err)
	}
	for session, want := range map[string]string{"alice": `"pluginId":"clock-1"`, "bob": `{"mode":"plugins","plugins":[]}`} {
		out, err := inv.InvokeSession(ctx, session, "cordis_inspect_self", nil)
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: %s, %v", session, out, err)
		}
	}
	if _, err := inv.Invoke(kit.WithSession(ctx, ""), "cordis_inspect_self", nil); err == nil || !strings.Contains(err.Error(), "needs an agent-backed session") {
		t.Errorf("no session: %v", err)
	}
}

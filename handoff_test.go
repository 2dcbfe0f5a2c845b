package cordiskit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cordiskit/cordiskit"
	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/pgstore"
)

// TestSessionFollowsItsClient: two runtimes on one PostgreSQL store, as two processes
// behind a balancer. Alice's Plugin runs in the first; when her MCP client connects to the
// second, its first request moves her runs there (the assembly point wires the MCP
// server's OnSession to Runner.TakeSession), so a stop she sends the second is served
// there instead of being refused as a session held elsewhere. The leases last an hour:
// nothing but the handoff moves the session.
func TestSessionFollowsItsClient(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	newRuntime := func() *cordiskit.Runtime {
		st, err := pgstore.Open(ctx, dsn, &pgstore.Options{LeaseTTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := cordiskit.New(nil, &cordiskit.Options{
			Runner: &runner.Options{Store: st, RestartAtBoot: true},
			MCP:    &mcpkit.Options{Session: func(ss *mcp.ServerSession) string { return ss.InitializeParams().ClientInfo.Name }},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := rt.Close(ctx); err != nil {
				t.Error(err)
			}
			st.Close()
		})
		return rt
	}
	first, second := newRuntime(), newRuntime()
	define, _ := json.Marshal(map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": "clock"}, "name": "Clock", "purpose": "Ticks.", "code": map[string]string{"host": "return (ctx) => {}"}})
	if _, err := first.Invoker().InvokeSession(ctx, "alice", "cordis_define", define); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Invoker().InvokeSession(ctx, "alice", "cordis_run", json.RawMessage(`{"pluginId":"clock-1","packageId":"pkg-1","mode":"run"}`)); err != nil {
		t.Fatal(err)
	}
	// Before her client comes, the second process refuses to stop what runs in the first.
	if _, err := second.Invoker().InvokeSession(ctx, "alice", "cordis_stop", json.RawMessage(`{"pluginId":"clock-1"}`)); err == nil {
		t.Fatal("the second runtime stopped alice's Plugin while the first held her session")
	}

	sctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 2)
	defer func() {
		cancel()
		<-served
		<-served
	}()
	connect := func(name string) *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		go func() { served <- second.ServeMCP(sctx, st) }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	// Another session's client moves only its own session: after bob's first request,
	// and more than the runners' look for orphans (half a second), alice's runs stay in the
	// first process.
	bob := connect("bob")
	if _, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "cordis_inspect_self", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := second.Invoker().InvokeSession(ctx, "alice", "cordis_stop", json.RawMessage(`{"pluginId":"clock-1"}`)); err == nil {
		t.Fatal("bob's client moved alice's session: the second runtime stopped her Plugin")
	}
	cs := connect("alice")
	var last string
	for deadline := time.Now().Add(20 * time.Second); ; {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "cordis_stop", Arguments: map[string]any{"pluginId": "clock-1"}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			break
		}
		last = res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(last, "another process") && !strings.Contains(last, "elsewhere") {
			t.Fatalf("cordis_stop through the second runtime: %s", last)
		}
		if time.Now().After(deadline) {
			t.Fatalf("alice's session never came to the runtime her client uses: %s", last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

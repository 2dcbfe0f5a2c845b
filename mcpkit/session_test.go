package mcpkit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/runner"
)

// newRunnerServer starts a runner and an MCP server that delivers its messages; opts
// (nil: defaults) gets Messages set to the runner.
func newRunnerServer(t *testing.T, opts *mcpkit.Options) (*runner.Runner, *mcpkit.Server) {
	t.Helper()
	root := newRuntime(t)
	r, err := runner.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	var o mcpkit.Options
	if opts != nil {
		o = *opts
	}
	o.Messages = r
	s, err := mcpkit.NewServer(root, &o)
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
	r, s := newRunnerServer(t, nil)
	a, b := connect(t, s, ""), connect(t, s, "")

	if out, isErr := tool(t, a.ClientSession, "cordis_define", clockDefine); isErr || !strings.Contains(out, `"pluginId":"clock-1"`) {
		t.Fatalf("a defines: %s", out)
	}
	if out, isErr := tool(t, a.ClientSession, "cordis_run", `{"pluginId":"clock-1","packageId":"pkg-1","mode":"run"}`); isErr || !strings.Contains(out, `"status":"running"`) {
		t.Fatalf("a runs: %s", out)
	}
	if out, _ := tool(t, b.ClientSession, "cordis_inspect_self", `{}`); out != `{"mode":"plugins","plugins":[]}` {
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
		if out, isErr := tool(t, b.ClientSession, c.tool, c.args); !isErr || out != missing {
			t.Errorf("b %s: %v %s", c.tool, isErr, out)
		}
	}
	if out, _ := tool(t, a.ClientSession, "cordis_inspect_self", `{"pluginId":"clock-1"}`); !strings.Contains(out, `"state":"running"`) {
		t.Errorf("a's plugin after b's attempts: %s", out)
	}
	rows, err := r.Inventory(context.Background())
	if err != nil || len(rows) != 1 || !strings.HasPrefix(rows[0].Session, "mcp-") {
		t.Fatalf("inventory %+v, %v", rows, err)
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

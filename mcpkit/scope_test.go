package mcpkit_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectAs connects a client whose clientInfo.name the server's Options.Session below
// turns into its session.
func connectAs(t *testing.T, s *mcpkit.Server, name string) *client {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 64)
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return &client{cs, changed}
}

// A tool a session's plugin registers is listed to that session's client only, and
// another client's call of it is answered as for a tool that does not exist.
func TestToolListIsPerSession(t *testing.T) {
	ctx := context.Background()
	root := kit.New(nil)
	defer root.Fiber().Dispose(ctx)
	s, err := mcpkit.NewServer(root, &mcpkit.Options{Session: func(ss *mcp.ServerSession) string {
		return ss.InitializeParams().ClientInfo.Name
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	alice, bob := connectAs(t, s, "alice"), connectAs(t, s, "bob")

	register := func(session, name string) {
		f := root.Plugin(&kit.Plugin{Name: name, Session: session, Inject: []string{"tools"}, Apply: func(c *kit.Context) error {
			tools, _ := kit.ToolsService.Get(c)
			tool := greetTool()
			tool.Name = name
			_, err := tools.Register(c, tool)
			return err
		}})
		if err := f.Err(); err != nil {
			t.Fatal(err)
		}
	}
	register("", "shared_greet")
	register("alice", "alice_greet")
	register("bob", "bob_greet")

	if got := alice.names(t); !slices.Equal(got, []string{"alice_greet", "shared_greet"}) {
		t.Errorf("alice lists %v, want her tool and the runtime's", got)
	}
	if got := bob.names(t); !slices.Equal(got, []string{"bob_greet", "shared_greet"}) {
		t.Errorf("bob lists %v, want his tool and the runtime's", got)
	}
	res := bob.call(t, "alice_greet", map[string]any{"name": "x"})
	if !res.IsError || strings.Contains(text(res), "hello") || strings.Contains(text(res), "alice_greet,") {
		t.Errorf("bob calling alice's tool: %+v %q; want an unknown-tool error that lists none of alice's", res, text(res))
	}
	if res := alice.call(t, "alice_greet", map[string]any{"name": "alice"}); res.IsError || text(res) != "hello, alice" {
		t.Errorf("alice calling her tool: %q", text(res))
	}
}

// One session filling its tool list to the message budget keeps no other session's tools
// off its list: each session's list has the whole budget.
func TestToolListBudgetIsPerSession(t *testing.T) {
	ctx := context.Background()
	root := kit.New(nil)
	defer root.Fiber().Dispose(ctx)
	s, err := mcpkit.NewServer(root, &mcpkit.Options{MaxMessageBytes: 8 << 10, Session: func(ss *mcp.ServerSession) string {
		return ss.InitializeParams().ClientInfo.Name
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	bob := connectAs(t, s, "bob")
	register := func(session, name string, descBytes int) error {
		var err error
		root.Plugin(&kit.Plugin{Name: name, Session: session, Inject: []string{"tools"}, Apply: func(c *kit.Context) error {
			tools, _ := kit.ToolsService.Get(c)
			tool := greetTool()
			tool.Name, tool.Description = name, strings.Repeat("d", descBytes)
			_, err = tools.Register(c, tool)
			return nil
		}})
		return err
	}
	// Alice fills her list until the budget refuses her.
	filled := false
	for i := range 20 {
		if err := register("alice", "alice_"+string(rune('a'+i)), 600); err != nil {
			if !strings.Contains(err.Error(), "more than one message carries") {
				t.Fatalf("alice's registration %d: %v", i, err)
			}
			filled = true
			break
		}
	}
	if !filled {
		t.Fatal("alice never reached the list budget: the test proves nothing")
	}
	if err := register("bob", "bob_tool", 600); err != nil {
		t.Errorf("bob's tool after alice filled her list: %v", err)
	}
	if got := bob.names(t); !slices.Equal(got, []string{"bob_tool"}) {
		t.Errorf("bob lists %v, want [bob_tool]", got)
	}
}

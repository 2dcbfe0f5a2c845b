//lint:file-ignore SA1019 these tests drive the log notification copies, MCP's logging of protocols before 2026-07-28

package mcpkit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logClient is a client that records the log notifications it receives.
type logClient struct {
	*mcp.ClientSession
	logs chan msg
}

func logHandler(logs chan msg) *mcp.ClientOptions {
	return &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
		var m struct{ Kind, PluginID, Text string }
		b, _ := json.Marshal(r.Params.Data)
		_ = json.Unmarshal(b, &m)
		if r.Params.Level != mcpkit.MessageLevel || r.Params.Logger != mcpkit.MessageLogger {
			m.Text = "level " + string(r.Params.Level) + " logger " + r.Params.Logger + ": " + m.Text
		}
		logs <- msg(m)
	}}
}

// connectLogging connects a client named name that speaks protocol.
func connectLogging(t *testing.T, s *mcpkit.Server, name, protocol string) *logClient {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := make(chan msg, 16)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, logHandler(logs)).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return &logClient{cs, logs}
}

func (c *logClient) level(t *testing.T, level mcp.LoggingLevel) {
	t.Helper()
	if err := c.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: level}); err != nil {
		t.Fatal(err)
	}
}

// next waits for the next log notification.
func (c *logClient) next(t *testing.T) msg {
	t.Helper()
	select {
	case m := <-c.logs:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no log notification")
		return msg{}
	}
}

// A client before 2026-07-28 that sets its log level to notice or lower also gets each new
// message as a log notification — the messages still go into its next tool result — and
// one with no level, or a level above notice, gets none. A client's first notification
// after it turns them on is the first message sent after, so none was sent before.
func TestLogCopiesForClientsThatAsk(t *testing.T) {
	src := newFakeSource()
	s := namedServer(t, src, nil)
	alice, bob := connectLogging(t, s, "alice", "2025-11-25"), connectLogging(t, s, "bob", "2025-11-25")
	alice.level(t, "notice")
	bob.level(t, "error")
	first, second := msg{"steer", "clock-1", "first"}, msg{"inject", "clock-1", "second"}
	src.send("alice", first)
	src.send("bob", first)
	if got := alice.next(t); got != first {
		t.Errorf("alice's notification %+v; want %+v", got, first)
	}
	if _, got, _ := split(t, callTool(t, alice.ClientSession, "echo", map[string]any{"text": "x"})); !cmp.Equal(got, []msg{first}) {
		t.Errorf("alice's result carries %+v; want the message too", got)
	}
	bob.level(t, "info")
	src.send("bob", second)
	if got := bob.next(t); got != second {
		t.Errorf("bob's first notification after level info is %+v; want %+v (nothing at level error)", got, second)
	}
	if _, got, _ := split(t, callTool(t, bob.ClientSession, "echo", map[string]any{"text": "x"})); !cmp.Equal(got, []msg{first, second}) {
		t.Errorf("bob's result carries %+v; want both", got)
	}
}

// A client of 2026-07-28 gets messages in its tool results only: that protocol has no
// logging/setLevel (the SDK's client sends one all the same, and its server takes it), so
// the server never watches its session for notification copies. One of 2025-11-25
// that sends the same is watched.
func TestNoLogCopiesFrom20260728(t *testing.T) {
	src := newFakeSource()
	s := namedServer(t, src, nil)
	for _, c := range []struct {
		name, protocol string
		watched        int
	}{{"alice", "2026-07-28", 0}, {"bob", "2025-11-25", 1}} {
		cl := connectLogging(t, s, c.name, c.protocol)
		_ = cl.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"})
		if n := src.watching(c.name); n != c.watched {
			t.Errorf("a %s client that sent logging/setLevel debug is watched %d times; want %d", c.protocol, n, c.watched)
		}
		src.send(c.name, msg{"steer", "clock-1", "in the result"})
		if _, got, _ := split(t, callTool(t, cl.ClientSession, "echo", map[string]any{"text": "x"})); !cmp.Equal(got, []msg{{"steer", "clock-1", "in the result"}}) {
			t.Errorf("the %s client's result carries %+v", c.protocol, got)
		}
	}
}

// Over HTTP with two people's tokens, both asking for notifications: alice's messages
// are never sent to bob — the first notification bob gets is his own.
func TestLogCopiesStayInTheirSessionOverHTTP(t *testing.T) {
	hs := serveHTTPTest(t, testTokens)
	ctx := context.Background()
	connect := func(token string) *logClient {
		logs := make(chan msg, 16)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "laptop", Version: "v0"}, logHandler(logs)).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: hs.endpoint, HTTPClient: &http.Client{Transport: bearer{token, hs.tr}}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		c := &logClient{cs, logs}
		c.level(t, "notice")
		return c
	}
	alice, bob := connect(aliceToken), connect(bobToken)
	for _, c := range []*logClient{alice, bob} {
		if _, isErr := tool(t, c.ClientSession, "cordis_define", clockDefine); isErr {
			t.Fatal("define failed")
		}
	}
	if err := hs.r.StopFromPanel(ctx, page.PanelPluginArgs{Session: "alice", PluginID: "clock-1"}); err != nil {
		t.Fatal(err)
	}
	stopped := msg{"inject", "clock-1", "The user stopped clock-1 from the Cordis panel; its Packages remain. currentPackageId is none."}
	if got := alice.next(t); got != stopped {
		t.Errorf("alice's notification %+v", got)
	}
	bobs := msg{"inject", "clock-2", "The user removed clock-2 and all of its Packages from the Cordis panel; it no longer exists."}
	if _, err := hs.r.UndefineFromPanel(ctx, page.PanelPluginArgs{Session: "bob", PluginID: "clock-2"}); err != nil {
		t.Fatal(err)
	}
	if got := bob.next(t); got != bobs {
		t.Errorf("bob's first notification %+v; want his own %+v", got, bobs)
	}
}

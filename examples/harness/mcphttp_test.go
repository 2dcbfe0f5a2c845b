package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpLine matches the MCP endpoint's line on stderr and captures the URL and the token
// shown (the token itself when it was made at random).
var mcpLine = regexp.MustCompile(`^mcp: (http://127\.0\.0\.1:\d+/mcp) \(Authorization: Bearer (.+)\)\n$`)

// httpClient is one MCP client of mcp -http.
type httpClient struct {
	*mcp.ClientSession
}

// connectHTTP connects an MCP client named name that sends token as its bearer.
func connectHTTP(t *testing.T, ctx context.Context, url, token, name string) *httpClient {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearerClient(token)}, nil)
	if err != nil {
		t.Fatalf("%s connects to %s: %v", name, url, err)
	}
	return &httpClient{cs}
}

// messages calls cordis_inspect_self and returns the texts of the runtime's messages its
// result carries after the tool's own content.
func (c *httpClient) messages(t *testing.T, ctx context.Context) []string {
	t.Helper()
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "cordis_inspect_self", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("cordis_inspect_self: %v %+v", err, res)
	}
	var texts []string
	for _, content := range res.Content {
		if tc, ok := content.(*mcp.TextContent); ok && tc.Meta[mcpkit.MessageMetaKey] != nil {
			texts = append(texts, tc.Text)
		}
	}
	return texts
}

// call calls a tool that must succeed and returns its structured result as JSON.
func (c *httpClient) call(t *testing.T, ctx context.Context, tool string, args map[string]any) string {
	t.Helper()
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", tool, err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	return string(b)
}

// TestMCPHTTP: mcp -http serves one runtime to several MCP clients over streamable HTTP,
// each its own session: each defines a Plugin and sees only its own, and a message for
// one (a person stopped its Plugin in the panel) rides on that client's next tool result
// only. The URL is on
// stderr after the panel's; an interrupt ends the command cleanly with clients connected.
func TestMCPHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	serve, stop := context.WithCancel(ctx)
	defer stop()
	t.Setenv(panelTokenEnv, panelTok)
	args := []string{"-dir", t.TempDir(), "-state", t.TempDir(), "-http", ":0", "-panel", "127.0.0.1:0"}
	lines, wait := firstLines(t, 2, func(stderr io.Writer) error { return runMCP(serve, args, nil, stderr) })
	if !panelLine.MatchString(lines[0]) {
		t.Fatalf("first line on stderr %q is not the panel's", lines[0])
	}
	m := mcpLine.FindStringSubmatch(lines[1])
	if m == nil {
		t.Fatalf("second line on stderr %q is not mcp: http://127.0.0.1:PORT/mcp (Authorization: Bearer TOKEN) (an address without a host is loopback)", lines[1])
	}
	panelURL := panelLine.FindStringSubmatch(lines[0])[1]

	a, b := connectHTTP(t, ctx, m[1], m[2], "alpha"), connectHTTP(t, ctx, m[1], m[2], "beta")
	ids := map[*httpClient]string{}
	for _, c := range []*httpClient{a, b} {
		var out struct{ PluginID string }
		res := c.call(t, ctx, "cordis_define", map[string]any{
			"plugin": map[string]any{"kind": "new", "idPrefix": "clock"}, "name": "Clock", "purpose": "Shows the time.",
			"code": map[string]any{"host": "return (ctx) => {}"}})
		if err := json.Unmarshal([]byte(res), &out); err != nil || out.PluginID == "" {
			t.Fatalf("define: %s", res)
		}
		ids[c] = out.PluginID
	}
	a.call(t, ctx, "cordis_run", map[string]any{"pluginId": ids[a], "packageId": "pkg-1", "mode": "run"})
	for _, tc := range []struct{ c, other *httpClient }{{a, b}, {b, a}} {
		self := tc.c.call(t, ctx, "cordis_inspect_self", map[string]any{})
		if !strings.Contains(self, `"pluginId":"`+ids[tc.c]+`"`) || strings.Contains(self, ids[tc.other]) {
			t.Errorf("%s lists %s; want its %s and not %s", tc.c.InitializeResult().ServerInfo.Name, self, ids[tc.c], ids[tc.other])
		}
	}

	var inv struct {
		Value struct {
			Rows    []struct{ PluginID, Session string }
			Plugins int
		}
	}
	err := json.Unmarshal([]byte(inventory(t, panelURL, panelTok)), &inv)
	rows := inv.Value.Rows
	if err != nil || len(rows) != 2 || inv.Value.Plugins != 2 || rows[0].Session == rows[1].Session {
		t.Fatalf("the panel's inventory %+v (%v): want two Plugins in two sessions", inv.Value, err)
	}
	if rows[0].PluginID != ids[a] {
		t.Fatalf("the panel's inventory %+v does not list a's %s first", inv.Value, ids[a])
	}
	panelVerb(t, panelURL, panelTok, "stopFromPanel", fmt.Sprintf(`{"session":%q,"pluginId":%q}`, rows[0].Session, ids[a]))
	if got := b.messages(t, ctx); len(got) != 0 {
		t.Errorf("b's next result carries %q; a's messages are a's", got)
	}
	if got := a.messages(t, ctx); len(got) != 1 || !strings.Contains(got[0], `plugin="`+ids[a]+`"`) || !strings.Contains(got[0], "The user stopped "+ids[a]) {
		t.Errorf("a's next result carries %q; want that the user stopped %s", got, ids[a])
	}

	stop() // an interrupt, with both clients still connected
	if err := wait(); err != nil {
		t.Fatalf("mcp -http after an interrupt: %v", err)
	}
	a.Close()
	b.Close()
}

// TestMCPHTTPUsage: -http with -session, or an address that is not HOST:PORT, is refused
// with what to do instead; so are the token flags of -http without it.
func TestMCPHTTPUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"mcp", "-http", "127.0.0.1:0", "-session", "me"}, 2, "drop -session"},
		{[]string{"mcp", "-http", "8080"}, 1, "pass HOST:PORT such as 127.0.0.1:0"},
		{[]string{"mcp", "-http-token-file", "f"}, 2, "-http-token-file needs -http ADDR"},
		{[]string{"mcp", "-session-tokens", "f"}, 2, "-session-tokens needs -http ADDR"},
		{[]string{"mcp", "-http-token", "x"}, 2, "flag provided but not defined: -http-token"},
	} {
		var stderr strings.Builder
		code := run(context.Background(), tc.args, io.NopCloser(strings.NewReader("")), io.Discard, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("harness %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.stderr)
		}
	}
}

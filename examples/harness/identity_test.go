package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tokens of the identity tests: the panel's, and two people's of -session-tokens.
const (
	panelTok = "panel-token-0123456789"
	aliceTok = "alice-token-0123456789"
	bobTok   = "bob-token-0123456789ab"
)

// secretFile writes content to a file only its owner can read, as a token file must be.
func secretFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sessionTokens is a -session-tokens file for alice and bob.
func sessionTokens(t *testing.T) string {
	return secretFile(t, "# the people of this runtime\nalice "+aliceTok+"\n\n  bob\t"+bobTok+"  # bob's laptop\n")
}

// bearer adds a bearer token to every request, as an MCP client configured with one does.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// bearerClient is an HTTP client whose every request carries token. Its connections
// are its own, so a test's end closes them.
func bearerClient(token string) *http.Client {
	return &http.Client{Transport: bearer{token, &http.Transport{DisableKeepAlives: true}}}
}

// lockedBuffer is stderr as a test reads it while the command writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// mcpHTTPProcess is one run of mcp -http in this process, as a person starts it.
type mcpHTTPProcess struct {
	url, shown string // the endpoint and the token as its line shows it
	panel      string // the panel's URL, with -panel
	stderr     *lockedBuffer
	stop       func() error // interrupts it and returns its error
}

// startMCPHTTP runs mcp -http 127.0.0.1:0 with args and reads its first lines.
func startMCPHTTP(t *testing.T, args ...string) *mcpHTTPProcess {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := runMCP(ctx, append([]string{"-http", "127.0.0.1:0"}, args...), nil, pw)
		pw.Close()
		done <- err
	}()
	p := &mcpHTTPProcess{stderr: &lockedBuffer{}}
	drained := make(chan struct{})
	br := bufio.NewReader(pr)
	stopped := false
	p.stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		err := <-done
		<-drained
		return err
	}
	t.Cleanup(func() {
		if err := p.stop(); err != nil {
			t.Errorf("mcp -http: %v", err)
		}
	})
	for {
		line, err := br.ReadString('\n')
		p.stderr.Write([]byte(line))
		if err != nil {
			go func() { io.Copy(p.stderr, br); close(drained) }()
			t.Fatalf("mcp -http ended before its mcp line: %v\n%s", err, p.stderr)
		}
		if m := panelLine.FindStringSubmatch(line); m != nil {
			p.panel = m[1]
			continue
		}
		m := mcpLine.FindStringSubmatch(line)
		if m == nil {
			go func() { io.Copy(p.stderr, br); close(drained) }()
			t.Fatalf("a line on stderr before the mcp line: %q", line)
		}
		p.url, p.shown = m[1], m[2]
		break
	}
	go func() { io.Copy(p.stderr, br); close(drained) }()
	return p
}

// connect connects an MCP client named name with token; the test's end closes it.
func (p *mcpHTTPProcess) connect(t *testing.T, token, name string) *httpClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := connectHTTP(t, ctx, p.url, token, name)
	t.Cleanup(func() { c.Close() })
	return c
}

// tool calls a tool and returns its text and whether it failed.
func (c *httpClient) tool(t *testing.T, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, content := range res.Content {
		if tc, ok := content.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// rawPost sends one request to the endpoint and returns its status, WWW-Authenticate and
// body.
func (p *mcpHTTPProcess) rawPost(t *testing.T, body string, header map[string]string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", p.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := (&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	return res.StatusCode, res.Header.Get("WWW-Authenticate"), string(b)
}

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

var clockDefineArgs = map[string]any{
	"plugin": map[string]any{"kind": "new", "idPrefix": "clock"}, "name": "Clock", "purpose": "Shows the time.",
	"code": map[string]any{"host": "return (ctx) => {}"}}

// TestMCPHTTPNeedsAToken: a local process without the token, or with a wrong one, gets
// 401 with a challenge and a message that says where the token is; the random process
// token is long enough not to be guessed, and it works.
func TestMCPHTTPNeedsAToken(t *testing.T) {
	t.Setenv(mcpTokenEnv, "")
	p := startMCPHTTP(t, "-dir", t.TempDir(), "-state", t.TempDir())
	if len(p.shown) < 16 || strings.ContainsAny(p.shown, " <$") {
		t.Fatalf("the random process token %q is not shown, or is too short to be unguessable", p.shown)
	}
	for _, auth := range []string{"", "Bearer wrong-token-0123456789", "Bearer " + p.shown + "x", "Basic " + p.shown} {
		code, challenge, body := p.rawPost(t, initializeRequest, map[string]string{"Authorization": auth})
		if code != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer") ||
			!strings.Contains(body, "Authorization: Bearer TOKEN") && !strings.Contains(body, "not one this MCP server accepts") ||
			!strings.Contains(body, "on the server's stderr at start") {
			t.Errorf("Authorization %q: %d, WWW-Authenticate %q, %q; want 401 with a challenge and where the token is", auth, code, challenge, body)
		}
	}
	if code, _, body := p.rawPost(t, initializeRequest, map[string]string{"Authorization": "Bearer " + p.shown}); code != http.StatusOK {
		t.Errorf("the process token: %d %s", code, body)
	}
}

// TestMCPHTTPOriginAndHost: a web page of another origin, and a request that reaches
// the loopback listener under another host name (DNS rebinding), are refused with 403,
// with a valid token too.
func TestMCPHTTPOriginAndHost(t *testing.T) {
	t.Setenv(mcpTokenEnv, "")
	p := startMCPHTTP(t, "-dir", t.TempDir(), "-state", t.TempDir())
	auth := "Bearer " + p.shown
	for _, h := range []map[string]string{
		{"Authorization": auth, "Origin": "http://evil.example"},
		{"Authorization": auth, "Origin": "null"},
		{"Authorization": auth, "Origin": strings.TrimSuffix(p.url, "/mcp")},
		{"Authorization": auth, "Host": "evil.example"},
		{"Authorization": auth, "Host": "evil.example:" + p.url[strings.LastIndex(p.url, ":")+1:len(p.url)-len("/mcp")]},
	} {
		if code, _, body := p.rawPost(t, initializeRequest, h); code != http.StatusForbidden {
			t.Errorf("%v: %d %q; want 403", h, code, body)
		}
	}
}

// TestMCPHTTPSessionHijack: with -store, bob (a token of his own) names his client as
// alice names hers, and sends her Mcp-Session-Id: he reads nothing of hers, cannot
// undefine her Plugin, and every request on her client session is refused. The process
// token does no better. Two clients of the process token are two sessions.
func TestMCPHTTPSessionHijack(t *testing.T) {
	t.Setenv(mcpTokenEnv, "")
	p := startMCPHTTP(t, "-dir", t.TempDir(), "-state", t.TempDir(), "-store", "-session-tokens", sessionTokens(t))
	alice := p.connect(t, aliceTok, "laptop")
	if out, isErr := alice.tool(t, "cordis_define", clockDefineArgs); isErr || !strings.Contains(out, `"pluginId":"clock-1"`) {
		t.Fatalf("alice defines: %s", out)
	}
	bob := p.connect(t, bobTok, "laptop")
	if out, _ := bob.tool(t, "cordis_inspect_self", map[string]any{}); strings.Contains(out, "clock-1") {
		t.Errorf("bob, whose client has alice's name, lists %s", out)
	}
	if out, isErr := bob.tool(t, "cordis_undefine", map[string]any{"pluginId": "clock-1"}); !isErr {
		t.Errorf("bob undefined alice's clock-1: %s", out)
	}
	undefine := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"cordis_undefine","arguments":{"pluginId":"clock-1"}}}`
	for _, tok := range []string{bobTok, p.shown} {
		code, _, body := p.rawPost(t, undefine, map[string]string{"Authorization": "Bearer " + tok, "Mcp-Session-Id": alice.ID(), "Mcp-Protocol-Version": "2025-06-18"})
		if code != http.StatusForbidden {
			t.Errorf("tools/call on alice's client session with another token: %d %q; want 403", code, body)
		}
	}
	if out, _ := alice.tool(t, "cordis_inspect_self", map[string]any{}); !strings.Contains(out, `"pluginId":"clock-1"`) {
		t.Errorf("alice's Plugins after bob's attempts: %s", out)
	}

	one, two := p.connect(t, p.shown, "same"), p.connect(t, p.shown, "same")
	if _, isErr := one.tool(t, "cordis_define", clockDefineArgs); isErr {
		t.Fatal("define with the process token failed")
	}
	for _, c := range []*httpClient{two, bob} {
		if out, _ := c.tool(t, "cordis_inspect_self", map[string]any{}); strings.Contains(out, "clock-") {
			t.Errorf("another client lists %s; a client of the process token is a session of its own", out)
		}
	}
	if !strings.Contains(p.stderr.String(), "its Plugins are not found after a restart") || !strings.Contains(p.stderr.String(), "-session-tokens FILE") {
		t.Errorf("with -store the start does not say that the process token's sessions are lost on a restart:\n%s", p.stderr)
	}
	if strings.Contains(p.stderr.String(), aliceTok) || strings.Contains(p.stderr.String(), bobTok) {
		t.Errorf("stderr shows a person's token:\n%s", p.stderr)
	}
}

// TestMCPHTTPDurableSessionSurvivesRestart: with -store, alice's token is her session in
// the next process too (her running Plugin is there again), while what a client of the
// process token defined is found by no client of the next process.
func TestMCPHTTPDurableSessionSurvivesRestart(t *testing.T) {
	work, state, tokens := t.TempDir(), t.TempDir(), sessionTokens(t)
	tokenFile := secretFile(t, "operator-token-0123456789\n")
	args := []string{"-dir", work, "-state", state, "-store", "-session-tokens", tokens, "-http-token-file", tokenFile}
	p := startMCPHTTP(t, args...)
	if p.shown != "<the token in "+tokenFile+">" {
		t.Errorf("the mcp line shows %q; want the file named, not its token", p.shown)
	}
	alice := p.connect(t, aliceTok, "laptop")
	alice.call(t, context.Background(), "cordis_define", clockDefineArgs)
	alice.call(t, context.Background(), "cordis_run", map[string]any{"pluginId": "clock-1", "packageId": "pkg-1", "mode": "run"})
	op := p.connect(t, "operator-token-0123456789", "op")
	op.call(t, context.Background(), "cordis_define", clockDefineArgs) // clock-2, an ephemeral session's
	alice.Close()
	op.Close()
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}

	p = startMCPHTTP(t, args...)
	again := p.connect(t, aliceTok, "phone") // another client of hers
	if self := again.call(t, context.Background(), "cordis_inspect_self", map[string]any{}); !strings.Contains(self, `"pluginId":"clock-1"`) ||
		!strings.Contains(self, `"state":"running"`) || strings.Contains(self, "clock-2") {
		t.Errorf("alice after a restart lists %s; want her clock-1 running, and not clock-2", self)
	}
	for _, c := range []*httpClient{p.connect(t, "operator-token-0123456789", "op"), p.connect(t, bobTok, "laptop")} {
		if out, _ := c.tool(t, "cordis_inspect_self", map[string]any{}); strings.Contains(out, "clock-") {
			t.Errorf("after a restart another client lists %s", out)
		}
	}
}

// TestTokenFilesRefused: a token file other users can read or change, a malformed line
// of -session-tokens (every one reported, by line, without its token), a token too short
// to be unguessable, or the process token listed as a person's: mcp refuses to start
// with what to fix, before it listens.
func TestTokenFilesRefused(t *testing.T) {
	open := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(open, []byte("alice "+aliceTok+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o644); err != nil { // past the umask
		t.Fatal(err)
	}
	bad := secretFile(t, "alice "+aliceTok+"\nbob\ncarol short-token\nmcp-1 dave-token-0123456789\nerin "+aliceTok+"\n")
	for _, tc := range []struct {
		args []string
		env  string
		want []string
	}{
		{[]string{"-session-tokens", open}, "", []string{"-session-tokens " + open + ": other users can read or change it (mode 0644)", "run chmod 600 " + open}},
		{[]string{"-http-token-file", open}, "", []string{"-http-token-file " + open + ": other users can read or change it", "chmod 600"}},
		{[]string{"-panel", "127.0.0.1:0", "-panel-token-file", open}, "", []string{"-panel-token-file " + open + ": other users can read or change it", "chmod 600"}},
		{[]string{"-session-tokens", t.TempDir()}, "", []string{"not a regular file"}},
		{[]string{"-session-tokens", bad}, "", []string{bad + ":2: 1 words; write SESSION TOKEN", bad + ":3: session carol: the token has 11 characters, fewer than 16",
			bad + `:4: session mcp-1: the session name "mcp-1" begins with "mcp-"`, bad + ":5: session erin has the token of line 1; give each person a token of their own"}},
		{nil, "short", []string{"the token in $CORDIS_MCP_TOKEN: the token has 5 characters, fewer than 16"}},
		{[]string{"-session-tokens", secretFile(t, "alice "+aliceTok)}, aliceTok, []string{"lists the process token as a person's"}},
	} {
		t.Setenv(mcpTokenEnv, tc.env)
		var stderr strings.Builder
		args := append([]string{"mcp", "-http", "127.0.0.1:0"}, tc.args...)
		code := run(context.Background(), args, io.NopCloser(strings.NewReader("")), io.Discard, &stderr)
		if code != 1 {
			t.Errorf("harness %v: exit %d; want 1", tc.args, code)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("harness %v: stderr %q lacks %q", tc.args, stderr.String(), w)
			}
		}
		if strings.Contains(stderr.String(), aliceTok) || strings.Contains(stderr.String(), "dave-token") {
			t.Errorf("harness %v: stderr shows a token: %q", tc.args, stderr.String())
		}
		if strings.Contains(stderr.String(), "mcp: http") {
			t.Errorf("harness %v: served before refusing: %q", tc.args, stderr.String())
		}
	}
}

// TestMCPHTTPTokenFromEnvironment: $CORDIS_MCP_TOKEN is the process token; the line
// names the variable instead of showing the token.
func TestMCPHTTPTokenFromEnvironment(t *testing.T) {
	t.Setenv(mcpTokenEnv, "env-token-0123456789ab")
	p := startMCPHTTP(t, "-dir", t.TempDir(), "-state", t.TempDir())
	if p.shown != "$"+mcpTokenEnv {
		t.Errorf("the mcp line shows %q; want $%s", p.shown, mcpTokenEnv)
	}
	c := p.connect(t, "env-token-0123456789ab", "env")
	if out := c.call(t, context.Background(), "cordis_inspect_self", map[string]any{}); !strings.Contains(out, `"plugins":[]`) {
		t.Errorf("a client of the environment's token lists %s", out)
	}
}

// inventoryOf returns the sessions of the Plugins the panel shows to token.
func inventoryOf(t *testing.T, panelURL, token string) map[string][]string {
	t.Helper()
	var inv struct {
		Value struct {
			Rows      []struct{ PluginID, Session string }
			Truncated bool
		}
	}
	if body := inventory(t, panelURL, token); json.Unmarshal([]byte(body), &inv) != nil || inv.Value.Truncated {
		t.Fatalf("inventory: %s", body)
	}
	out := map[string][]string{}
	for _, row := range inv.Value.Rows {
		out[row.Session] = append(out[row.Session], row.PluginID)
	}
	return out
}

// panelPost calls a panel verb with token as the bearer and returns the status and body.
func panelPost(t *testing.T, panelURL, token, verb, body string) (int, string) {
	t.Helper()
	base := panelURL[:strings.Index(panelURL, "?")]
	req, _ := http.NewRequest("POST", base+"rpc/"+verb, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := (&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestMCPHTTPOneTokenPerPerson: alice's line in -session-tokens opens her MCP session
// and her view of the panel, which shows and answers her Plugins only; bob's the same for
// his. The panel's own token sees both; the MCP process token does not open the panel.
func TestMCPHTTPOneTokenPerPerson(t *testing.T) {
	t.Setenv(mcpTokenEnv, "")
	t.Setenv(panelTokenEnv, panelTok)
	p := startMCPHTTP(t, "-dir", t.TempDir(), "-state", t.TempDir(), "-session-tokens", sessionTokens(t), "-panel", "127.0.0.1:0")
	if p.panel == "" {
		t.Fatal("no panel line before the mcp line")
	}
	ids := map[string]string{}
	for _, who := range []struct{ name, token string }{{"alice", aliceTok}, {"bob", bobTok}} {
		var d struct{ PluginID string }
		out := p.connect(t, who.token, "laptop").call(t, context.Background(), "cordis_define", clockDefineArgs)
		if err := json.Unmarshal([]byte(out), &d); err != nil || d.PluginID == "" {
			t.Fatalf("%s defines: %s", who.name, out)
		}
		ids[who.name] = d.PluginID
	}
	if got := inventoryOf(t, p.panel, panelTok); len(got) != 2 || got["alice"][0] != ids["alice"] || got["bob"][0] != ids["bob"] {
		t.Errorf("the operator's panel shows %v; want alice's %s and bob's %s", got, ids["alice"], ids["bob"])
	}
	if got := inventoryOf(t, p.panel, aliceTok); len(got) != 1 || len(got["alice"]) != 1 || got["alice"][0] != ids["alice"] {
		t.Errorf("alice's panel shows %v; want her %s alone", got, ids["alice"])
	}
	if got := inventoryOf(t, p.panel, bobTok); len(got) != 1 || len(got["bob"]) != 1 {
		t.Errorf("bob's panel shows %v; want his Plugin alone", got)
	}
	// Alice's panel token cannot stop bob's Plugin, whatever session she names.
	for _, agent := range []string{"bob", "alice"} {
		code, body := panelPost(t, p.panel, aliceTok, "stopFromPanel", fmt.Sprintf(`{"session":%q,"pluginId":%q}`, agent, ids["bob"]))
		if code != http.StatusOK || !strings.Contains(body, `"ok":false`) || !strings.Contains(body, `"code":"plugin-missing"`) {
			t.Errorf("alice stops bob's %s as %s: %d %s; want plugin-missing", ids["bob"], agent, code, body)
		}
	}
	if got := inventoryOf(t, p.panel, bobTok); len(got["bob"]) != 1 {
		t.Errorf("bob's Plugins after alice's attempts: %v", got)
	}
	if code, body := panelPost(t, p.panel, p.shown, "inventory", "{}"); code != http.StatusUnauthorized {
		t.Errorf("the MCP process token at the panel: %d %s; want 401", code, body)
	}
}

// FuzzSessionTokens: whatever a tokens file holds, parsing it ends with every token one
// a client could not guess, each listed once, or an error by line that quotes no token.
func FuzzSessionTokens(f *testing.F) {
	f.Add("# people\nalice " + aliceTok + "\n\n  bob\t" + bobTok + "  # laptop\n")
	f.Add("alice\nbob short\nmcp-1 " + aliceTok + "\ncarol " + aliceTok + " extra\n")
	f.Add("al\x00ice " + aliceTok + "\r\n")
	f.Fuzz(func(t *testing.T, content string) {
		tokens, err := parseSessionTokens("tokens", []byte(content))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "tokens:") {
				t.Errorf("an error without the file: %v", err)
			}
			lines := strings.Split(content, "\n")
			for _, line := range lines {
				f := strings.Fields(line)
				if len(f) != 2 || !mcpkitCheck(f[1]) || !strings.Contains(err.Error(), f[1]) {
					continue
				}
				named := false // a session name, quoted to say what is wrong with it, may hold it
				for _, other := range lines {
					named = named || strings.Contains(other, f[1]) && !strings.HasSuffix(strings.TrimSpace(other), f[1])
				}
				if !named {
					t.Errorf("the error %q quotes the token %q", err, f[1])
				}
			}
			return
		}
		seen := map[string]bool{}
		for _, tok := range tokens {
			if tok.Session == "" || len(tok.Token) < 16 || seen[tok.Token] || strings.ContainsAny(tok.Token+tok.Session, " \t\n#") {
				t.Errorf("accepted %+v", tok)
			}
			seen[tok.Token] = true
		}
	})
}

// mcpkitCheck reports whether tok is a token mcpkit accepts.
func mcpkitCheck(tok string) bool { return mcpkit.CheckToken(mcpkit.Token{Token: tok}) == nil }

package mcpkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tokens of the HTTP tests: two people with sessions of their own, and a token
// without a name (a runtime's per-process token) whose clients are each ephemeral.
const (
	aliceToken   = "alice-token-0123456789"
	bobToken     = "bob-token-0123456789ab"
	processToken = "process-token-0123456789"
)

var testTokens = &mcpkit.HTTPOptions{
	Tokens: []mcpkit.Token{
		{Token: aliceToken, Session: "alice"},
		{Token: bobToken, Session: "bob"},
		{Token: processToken},
	},
	AllowedOrigins: []string{"https://app.example"},
	TokenHelp:      "ask the operator for one",
}

// httpServer is ServeHTTP on a loopback listener with a runner, for clients to attack.
type httpServer struct {
	endpoint string
	r        *runner.Runner
	tr       *http.Transport // the clients' connections, closed at the end
}

// serveHTTPTest serves a fresh runtime with a runner over HTTP with opts until the test
// ends, then checks that ServeHTTP returned nil.
func serveHTTPTest(t *testing.T, opts *mcpkit.HTTPOptions) *httpServer {
	t.Helper()
	return serveHTTPWith(t, &mcpkit.Options{HTTP: opts})
}

// serveHTTPWith is serveHTTPTest with Options of the test's own (Messages is the runner).
func serveHTTPWith(t *testing.T, opts *mcpkit.Options) *httpServer {
	t.Helper()
	root := newRuntime(t)
	r, err := runner.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	o := *opts
	o.Messages = r
	go func() { done <- mcpkit.ServeHTTP(ctx, root, ln, &o) }()
	hs := &httpServer{endpoint: "http://" + ln.Addr().String() + mcpkit.HTTPPath, r: r, tr: &http.Transport{}}
	t.Cleanup(func() {
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeHTTP: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeHTTP did not return after its context ended")
		}
		hs.tr.CloseIdleConnections()
		r.Dispose(context.Background())
	})
	return hs
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

// connect connects an MCP client named name that sends token ("": none).
func (hs *httpServer) connect(t *testing.T, token, name string) (*mcp.ClientSession, error) {
	t.Helper()
	var rt http.RoundTripper = hs.tr
	if token != "" {
		rt = bearer{token, hs.tr}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.endpoint, HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func (hs *httpServer) mustConnect(t *testing.T, token, name string) *mcp.ClientSession {
	t.Helper()
	cs, err := hs.connect(t, token, name)
	if err != nil {
		t.Fatalf("%s connects with its token: %v", name, err)
	}
	return cs
}

// tool calls a tool over an MCP client session and returns its text and isError.
func tool(t *testing.T, cs *mcp.ClientSession, name, args string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return text(res), res.IsError
}

// raw sends one HTTP request to the endpoint with the given headers and returns the
// status, a header and the body.
func (hs *httpServer) raw(t *testing.T, method, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, hs.endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := (&http.Client{Transport: hs.tr, Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	return res.StatusCode, res.Header, string(b)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// A request without a token, or with one the server does not accept, is answered 401
// with a challenge and a message that says what to send and where to get it; the MCP
// client's Connect fails.
func TestHTTPRefusesWithoutAToken(t *testing.T) {
	hs := serveHTTPTest(t, testTokens)
	for _, tc := range []struct {
		name, auth, challenge, message string
	}{
		{"none", "", `Bearer realm="mcp"`, `send the header "Authorization: Bearer TOKEN"`},
		{"basic", "Basic YWxpY2U6c2VjcmV0", `Bearer realm="mcp"`, `send the header "Authorization: Bearer TOKEN"`},
		{"empty bearer", "Bearer ", `Bearer realm="mcp"`, `send the header "Authorization: Bearer TOKEN"`},
		{"wrong", "Bearer wrong-token-0123456789", `error="invalid_token"`, "not one this MCP server accepts"},
		{"a prefix of alice's", "Bearer " + aliceToken[:len(aliceToken)-1], `error="invalid_token"`, "not one this MCP server accepts"},
		{"alice's with a suffix", "Bearer " + aliceToken + "x", `error="invalid_token"`, "not one this MCP server accepts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tc.auth != "" {
				hdr["Authorization"] = tc.auth
			}
			for _, method := range []string{"POST", "GET", "DELETE"} {
				code, h, body := hs.raw(t, method, initialize, hdr)
				if code != http.StatusUnauthorized || !strings.Contains(h.Get("WWW-Authenticate"), tc.challenge) ||
					!strings.Contains(body, tc.message) || !strings.Contains(body, "ask the operator for one") {
					t.Errorf("%s: %d, WWW-Authenticate %q, body %q; want 401, %q, %q and the TokenHelp", method, code, h.Get("WWW-Authenticate"), body, tc.challenge, tc.message)
				}
			}
		})
	}
	if _, err := hs.connect(t, "", "anonymous"); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("an MCP client without a token connects: %v", err)
	}
	if _, err := hs.connect(t, "wrong-token-0123456789", "guesser"); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("an MCP client with a wrong token connects: %v", err)
	}
	if rows, _ := hs.r.Inventory(context.Background()); len(rows) != 0 {
		t.Errorf("refused clients left %+v", rows)
	}
}

// Bob, with a valid token of his own, sends Alice's Mcp-Session-Id: every verb on her
// client session is refused, and her session and Plugin are as she left them. The
// process token does no better.
func TestHTTPSessionIDIsNotABearer(t *testing.T) {
	hs := serveHTTPTest(t, testTokens)
	alice := hs.mustConnect(t, aliceToken, "alice-client")
	if out, isErr := tool(t, alice, "cordis_define", clockDefine); isErr || !strings.Contains(out, `"pluginId":"clock-1"`) {
		t.Fatalf("alice defines: %s", out)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cordis_undefine","arguments":{"pluginId":"clock-1"}}}`
	for _, tok := range []string{bobToken, processToken} {
		for _, method := range []string{"POST", "GET", "DELETE"} {
			code, _, body := hs.raw(t, method, call, map[string]string{
				"Authorization": "Bearer " + tok, "Mcp-Session-Id": alice.ID(), "Mcp-Protocol-Version": "2025-06-18"})
			if code != http.StatusForbidden {
				t.Errorf("%s on alice's session with %s: %d %q; want 403", method, tok, code, body)
			}
		}
	}
	if out, isErr := tool(t, alice, "cordis_inspect_self", `{"pluginId":"clock-1"}`); isErr || !strings.Contains(out, `"pluginId":"clock-1"`) {
		t.Errorf("alice's Plugin after bob's attempts: %s", out)
	}
	rows, err := hs.r.Inventory(context.Background())
	if err != nil || len(rows) != 1 || rows[0].Session != "alice" {
		t.Errorf("inventory %+v, %v; want alice's clock-1 alone", rows, err)
	}
}

// Bob names his client as Alice names hers: over HTTP the token, not clientInfo.name,
// says who a client is, even where Options.Session would name sessions after it. He sees
// none of her Plugins and cannot undefine hers.
func TestHTTPClientInfoNameIsNotIdentity(t *testing.T) {
	hs := serveHTTPWith(t, &mcpkit.Options{HTTP: testTokens, Session: func(ss *mcp.ServerSession) string {
		return "client:" + ss.InitializeParams().ClientInfo.Name
	}})
	alice := hs.mustConnect(t, aliceToken, "laptop")
	bob := hs.mustConnect(t, bobToken, "laptop")
	if _, isErr := tool(t, alice, "cordis_define", clockDefine); isErr {
		t.Fatal("alice's define failed")
	}
	if out, _ := tool(t, bob, "cordis_inspect_self", `{}`); out != `{"mode":"plugins","plugins":[]}` {
		t.Errorf("bob, named as alice's client, lists %s", out)
	}
	if out, isErr := tool(t, bob, "cordis_undefine", `{"pluginId":"clock-1"}`); !isErr || !strings.Contains(out, "belong to another session") {
		t.Errorf("bob undefines alice's clock-1: %v %s", isErr, out)
	}
	if out, _ := tool(t, alice, "cordis_inspect_self", `{}`); !strings.Contains(out, `"pluginId":"clock-1"`) {
		t.Errorf("alice's Plugins after bob's attempt: %s", out)
	}
	// Two clients of the process token with one name are two sessions too.
	p1, p2 := hs.mustConnect(t, processToken, "laptop"), hs.mustConnect(t, processToken, "laptop")
	if _, isErr := tool(t, p1, "cordis_define", clockDefine); isErr {
		t.Fatal("define failed")
	}
	if out, _ := tool(t, p2, "cordis_inspect_self", `{}`); out != `{"mode":"plugins","plugins":[]}` {
		t.Errorf("a second client of the process token named as the first lists %s", out)
	}
	rows, _ := hs.r.Inventory(context.Background())
	for _, row := range rows {
		if strings.HasPrefix(row.Session, "client:") {
			t.Errorf("a session over HTTP named after its client: %+v", row)
		}
	}
}

// A token with a name is that session for every client that sends it; the token without
// one gives each client its own ephemeral session, so two such clients share nothing.
func TestHTTPTokenNamesTheSession(t *testing.T) {
	hs := serveHTTPTest(t, testTokens)
	ctx := context.Background()
	laptop, phone := hs.mustConnect(t, aliceToken, "laptop"), hs.mustConnect(t, aliceToken, "phone")
	if _, isErr := tool(t, laptop, "cordis_define", clockDefine); isErr {
		t.Fatal("define failed")
	}
	if out, _ := tool(t, phone, "cordis_inspect_self", `{}`); !strings.Contains(out, `"pluginId":"clock-1"`) {
		t.Errorf("alice's second client lists %s; want the clock-1 of her session", out)
	}
	p1, p2 := hs.mustConnect(t, processToken, "one"), hs.mustConnect(t, processToken, "one")
	if _, isErr := tool(t, p1, "cordis_define", clockDefine); isErr {
		t.Fatal("define failed")
	}
	if out, _ := tool(t, p2, "cordis_inspect_self", `{}`); out != `{"mode":"plugins","plugins":[]}` {
		t.Errorf("a second client of the process token lists %s; want its own empty session", out)
	}
	rows, err := hs.r.Inventory(ctx)
	if err != nil || len(rows) != 2 {
		t.Fatalf("inventory %+v, %v", rows, err)
	}
	sessions := map[string]bool{}
	for _, row := range rows {
		sessions[row.Session] = true
	}
	var ephemeral string
	for s := range sessions {
		if s != "alice" {
			ephemeral = s
		}
	}
	if !sessions["alice"] || !strings.HasPrefix(ephemeral, "mcp-") || len(ephemeral) < len("mcp-TAG-1") {
		t.Errorf("sessions %v; want alice and one mcp-TAG-N", sessions)
	}
}

// A request from a web page of another origin is refused 403 before its token is even
// read; an origin the options allow passes.
func TestHTTPRefusesForeignOrigins(t *testing.T) {
	hs := serveHTTPTest(t, testTokens)
	for _, origin := range []string{"http://evil.example", "null", "https://app.example.evil.example", "http://app.example", "https://app.example:8443", hs.endpoint[:strings.LastIndex(hs.endpoint, "/")]} {
		for _, tok := range []string{aliceToken, ""} {
			code, _, body := hs.raw(t, "POST", initialize, map[string]string{"Authorization": "Bearer " + tok, "Origin": origin})
			if code != http.StatusForbidden || !strings.Contains(body, "AllowedOrigins") {
				t.Errorf("Origin %s, token %q: %d %q; want 403 saying how to allow an origin", origin, tok, code, body)
			}
		}
	}
	if code, _, body := hs.raw(t, "POST", initialize, map[string]string{"Authorization": "Bearer " + aliceToken, "Origin": "HTTPS://App.Example"}); code != http.StatusOK {
		t.Errorf("the allowed origin: %d %q", code, body)
	}
}

// DNS rebinding: a request that reaches the loopback listener under another host name is
// refused, with a valid token too (the SDK's check, kept on).
func TestHTTPRefusesForeignHostOnLoopback(t *testing.T) {
	hs := serveHTTPTest(t, testTokens)
	for _, host := range []string{"evil.example", "evil.example:80", "10.0.0.1"} {
		if code, _, body := hs.raw(t, "POST", initialize, map[string]string{"Authorization": "Bearer " + aliceToken, "Host": host}); code != http.StatusForbidden {
			t.Errorf("Host %s: %d %q; want 403", host, code, body)
		}
	}
	if code, _, body := hs.raw(t, "POST", initialize, map[string]string{"Authorization": "Bearer " + aliceToken, "Host": "localhost"}); code != http.StatusOK {
		t.Errorf("Host localhost: %d %q", code, body)
	}
}

// ServeHTTP without a token refuses to start, says what to set and closes the listener;
// InsecureNoToken, said explicitly, serves anyone, each client its own session.
func TestServeHTTPNeedsATokenOrAnExplicitOptOut(t *testing.T) {
	for _, opts := range []*mcpkit.HTTPOptions{nil, {}, {AllowedOrigins: []string{"https://app.example"}}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		err = mcpkit.ServeHTTP(context.Background(), newRuntime(t), ln, &mcpkit.Options{HTTP: opts})
		if !errors.Is(err, mcpkit.ErrNoHTTPToken) || !strings.Contains(err.Error(), "set Options.HTTP.Tokens") || !strings.Contains(err.Error(), "InsecureNoToken") {
			t.Errorf("ServeHTTP with %+v: %v; want ErrNoHTTPToken", opts, err)
		}
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			c.Close()
			t.Errorf("ServeHTTP with %+v left its listener open", opts)
		}
	}
	s, err := mcpkit.NewServer(newRuntime(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if h, err := s.HTTPHandler(nil); h != nil || !errors.Is(err, mcpkit.ErrNoHTTPToken) {
		t.Errorf("HTTPHandler without a token: %v, %v", h, err)
	}

	hs := serveHTTPTest(t, &mcpkit.HTTPOptions{InsecureNoToken: true})
	a, b := hs.mustConnect(t, "", "same"), hs.mustConnect(t, "", "same")
	if _, isErr := tool(t, a, "cordis_define", clockDefine); isErr {
		t.Fatal("define failed")
	}
	if out, _ := tool(t, b, "cordis_inspect_self", `{}`); out != `{"mode":"plugins","plugins":[]}` {
		t.Errorf("another client without a token lists %s", out)
	}
	if code, _, _ := hs.raw(t, "POST", initialize, map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden {
		t.Errorf("InsecureNoToken let a foreign origin in: %d", code)
	}
}

// Options.HTTP that would admit a guessable token, or that contradicts itself, is refused
// by NewServer with every problem and how to fix it.
func TestHTTPOptionsChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts mcpkit.HTTPOptions
		want []string
	}{
		{"short", mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: "hunter2"}}}, []string{"Tokens[0]", "7 characters, fewer than 16", "crypto/rand.Text"}},
		{"space", mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: "abcdefgh ijklmnopq"}}}, []string{`" " at byte 8`}},
		{"twice", mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: aliceToken, Session: "a"}, {Token: aliceToken, Session: "b"}}}, []string{`Tokens[1] (session "b"): the token is listed twice`}},
		{"minted name", mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: aliceToken, Session: "mcp-1"}}}, []string{`"mcp-1" begins with "mcp-"`}},
		{"name with a space", mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: aliceToken, Session: "alice smith"}}}, []string{"has a space"}},
		{"long name", mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: aliceToken, Session: strings.Repeat("a", 129)}}}, []string{"129 bytes, more than 128"}},
		{"both", mcpkit.HTTPOptions{InsecureNoToken: true, Tokens: []mcpkit.Token{{Token: aliceToken}}}, []string{"set one of the two"}},
		{"origin", mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: aliceToken}}, AllowedOrigins: []string{"app.example/x"}}, []string{`AllowedOrigins[0]: "app.example/x" is not an origin`}},
		{"all at once", mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: "x"}, {Token: aliceToken, Session: "mcp-x"}}}, []string{"Tokens[0]", "Tokens[1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mcpkit.NewServer(newRuntime(t), &mcpkit.Options{HTTP: &tc.opts})
			if err == nil {
				t.Fatal("NewServer accepted it")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

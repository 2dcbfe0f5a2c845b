package mcpkit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/bodylimit/rawclient"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bounds the body tests use: a short body deadline (and head deadline, for the
// server's backstop), and the slack the closing may take past it on a busy machine.
const (
	testBodyTimeout = time.Second
	closeSlack      = 3 * time.Second
)

var testLimits = mcpkit.HTTPLimits{BodyTimeout: testBodyTimeout, ReadHeaderTimeout: testBodyTimeout}

// limitEnv is ServeHTTP of a runtime with a tool that takes its time, on a loopback
// listener, until the test ends.
type limitEnv struct {
	addr string
	root *kit.Context
	tr   *http.Transport
}

func serveLimited(t *testing.T, limits mcpkit.HTTPLimits) *limitEnv {
	t.Helper()
	root := newRuntime(t)
	mount(t, root, "waiting", waitTool())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	opts := &mcpkit.HTTPOptions{Tokens: testTokens.Tokens, Limits: limits}
	go func() { done <- mcpkit.ServeHTTP(ctx, root, ln, &mcpkit.Options{HTTP: opts}) }()
	e := &limitEnv{addr: ln.Addr().String(), root: root, tr: &http.Transport{}}
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
		e.tr.CloseIdleConnections()
	})
	return e
}

// waitTool waits the milliseconds it is given, or until its call is cancelled.
func waitTool() kit.Tool {
	return kit.Tool{ToolSchema: kit.ToolSchema{Name: "wait", Description: "waits ms milliseconds",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}},"required":["ms"]}`)},
		Execute: func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			var a struct{ MS int }
			if err := json.Unmarshal(in, &a); err != nil {
				return nil, err
			}
			select {
			case <-time.After(time.Duration(a.MS) * time.Millisecond):
				return json.RawMessage(`{"waited":true}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}}
}

// head is a raw request head for addr: POST (or method) to path, with token ("": none).
func head(addr, method, path, token string, extra ...string) rawclient.Head {
	h := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", method, path, addr)
	if token != "" {
		h += "Authorization: Bearer " + token + "\r\n"
	}
	for _, x := range extra {
		h += x + "\r\n"
	}
	return rawclient.Head(h)
}

// rpcError decodes a refusal's JSON-RPC error: id null, the message.
func rpcError(t *testing.T, body string) string {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.JSONRPC != "2.0" || string(m.ID) != "null" || m.Error.Code != -32600 {
		t.Errorf("not a JSON-RPC error of id null: %q (%v)", body, err)
	}
	return m.Error.Message
}

// A request announcing 64 MiB and sending 100 bytes is answered 413 at once, before the
// token is checked and before its body is read, and its connection is closed.
func TestHTTPAnnouncedBodyOverTheLimitIs413AtOnce(t *testing.T) {
	e := serveLimited(t, mcpkit.HTTPLimits{})
	for _, token := range []string{aliceToken, ""} {
		res, err := rawclient.Announce(e.addr, head(e.addr, "POST", mcpkit.HTTPPath, token, "Content-Length: 67108864"), make([]byte, 100), 5*time.Second)
		if err != nil {
			t.Fatalf("token %q: %v (the server waited for the body)", token, err)
		}
		msg := rpcError(t, res.Body)
		if res.Status != http.StatusRequestEntityTooLarge || !res.Closed || !strings.Contains(msg, "67108864") ||
			!strings.Contains(msg, fmt.Sprint(mcpkit.DefaultMaxBodyBytes)) || !strings.Contains(msg, "mcpkit.HTTPLimits.MaxBodyBytes") {
			t.Errorf("token %q: %d %q, closed %v", token, res.Status, msg, res.Closed)
		}
	}
}

// One client's request over the limit fails with 413; another client's session goes on.
// (The SDK's client then closes its own connection: it reads only JSON-RPC errors with
// an id, and a request refused unread has none.)
func TestHTTPBodyOverTheLimitLeavesOtherClientsAlone(t *testing.T) {
	e := serveLimited(t, mcpkit.HTTPLimits{MaxBodyBytes: 4 << 10})
	hs := &httpServer{endpoint: "http://" + e.addr + mcpkit.HTTPPath, tr: e.tr}
	alice, bob := hs.mustConnect(t, aliceToken, "alice"), hs.mustConnect(t, bobToken, "bob")
	_, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"ms": 1, "pad": strings.Repeat("x", 8<<10)}})
	if err == nil || !strings.Contains(err.Error(), "Request Entity Too Large") {
		t.Fatalf("a call of 8 KiB under a 4 KiB limit = %v, want a 413", err)
	}
	if out, isErr := tool(t, bob, "wait", `{"ms":1}`); isErr || out != `{"waited":true}` {
		t.Errorf("bob's call beside it = %s", out)
	}
}

// HTTPHandler in a runtime author's own server, with no timeouts of its own: the SDK's
// MaxRequestBodyBytes is the limit when set, announced or read, and a trickling body is
// still cut within the deadline, with the token or without (the deadline comes before
// the token check).
func TestHTTPHandlerBoundsBodiesInAnyServer(t *testing.T) {
	root := newRuntime(t)
	s, err := mcpkit.NewServer(root, &mcpkit.Options{HTTP: &mcpkit.HTTPOptions{Tokens: testTokens.Tokens, Limits: mcpkit.HTTPLimits{BodyTimeout: testBodyTimeout}}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.HTTPHandler(&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h) // no ReadTimeout, no ReadHeaderTimeout
	t.Cleanup(func() {
		srv.Close()
		if err := errors.Join(s.CloseSessions(), s.Close(context.Background())); err != nil {
			t.Error(err)
		}
	})
	addr := strings.TrimPrefix(srv.URL, "http://")
	over := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 1024) + `"}}`
	for name, c := range map[string]struct {
		head rawclient.Head
		body string
	}{
		"announced": {head(addr, "POST", "/", aliceToken, fmt.Sprintf("Content-Length: %d", len(over))), over},
		"chunked":   {head(addr, "POST", "/", aliceToken, "Transfer-Encoding: chunked"), fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(over), over)},
	} {
		res, err := rawclient.Announce(addr, c.head, []byte(c.body), 5*time.Second)
		if err != nil || res.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: %+v, %v", name, res, err)
			continue
		}
		if msg := rpcError(t, res.Body); !strings.Contains(msg, "1024") || !strings.Contains(msg, "mcp.StreamableHTTPOptions.MaxRequestBodyBytes") {
			t.Errorf("%s: %q", name, msg)
		}
	}
	for token, want := range map[string]int{aliceToken: http.StatusRequestTimeout, "": http.StatusUnauthorized} {
		res, err := rawclient.Trickle(addr, head(addr, "POST", "/", token, "Content-Length: 100"), []byte(" "), 200*time.Millisecond, testBodyTimeout+closeSlack+5*time.Second)
		if err != nil || res.Status != want || !res.Closed || res.After > testBodyTimeout+closeSlack {
			t.Errorf("a trickling body with token %q in a server without timeouts: %+v, %v; want %d within %v", token, res, err, want, testBodyTimeout)
		}
	}
}

// trickle sends a request to e whose body arrives a byte every 200 ms, far slower than
// the deadline allows.
func (e *limitEnv) trickle(head rawclient.Head, unit string) (rawclient.Result, error) {
	return rawclient.Trickle(e.addr, head, []byte(unit), 200*time.Millisecond, testBodyTimeout+closeSlack+5*time.Second)
}

// A body that trickles is cut within the deadline: 408 with a token, announced or
// chunked; the token's 401 and the connection closed without one; on a path the MCP
// handler does not serve, by the server's backstop (head and body deadlines). A client
// beside them is served meanwhile.
func TestHTTPSlowBodyIsCutWithinTheDeadline(t *testing.T) {
	e := serveLimited(t, testLimits)
	hs := &httpServer{endpoint: "http://" + e.addr + mcpkit.HTTPPath, tr: e.tr}
	cases := []struct {
		name  string
		head  rawclient.Head
		unit  string
		want  int
		bound time.Duration
	}{
		{"content-length", head(e.addr, "POST", mcpkit.HTTPPath, aliceToken, "Content-Length: 100"), " ", http.StatusRequestTimeout, testBodyTimeout},
		{"chunked", head(e.addr, "POST", mcpkit.HTTPPath, aliceToken, "Transfer-Encoding: chunked"), "1\r\n \r\n", http.StatusRequestTimeout, testBodyTimeout},
		{"no token", head(e.addr, "POST", mcpkit.HTTPPath, "", "Content-Length: 100"), " ", http.StatusUnauthorized, testBodyTimeout},
		{"another path", head(e.addr, "POST", "/elsewhere", aliceToken, "Content-Length: 100"), " ", http.StatusNotFound, 2 * testBodyTimeout},
	}
	results := make([]rawclient.Result, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Go(func() { results[i], errs[i] = e.trickle(c.head, c.unit) })
	}
	bob := hs.mustConnect(t, bobToken, "bob")
	if out, isErr := tool(t, bob, "wait", `{"ms":1}`); isErr || out != `{"waited":true}` {
		t.Errorf("a client beside the slow bodies = %s", out)
	}
	wg.Wait()
	for i, c := range cases {
		res := results[i]
		if errs[i] != nil || !res.Closed || res.Status != c.want || res.After > c.bound+closeSlack {
			t.Errorf("%s: %d after %v, closed %v, %v; want %d within %v", c.name, res.Status, res.After, res.Closed, errs[i], c.want, c.bound)
			continue
		}
		if c.want == http.StatusRequestTimeout {
			if msg := rpcError(t, res.Body); !strings.Contains(msg, "mcpkit.HTTPLimits.BodyTimeout") || !strings.Contains(msg, "1s") {
				t.Errorf("%s: %q", c.name, msg)
			}
		}
	}
}

// Fifty clients trickling their bodies at once are all cut within the deadline, while a
// client beside them is served.
func TestHTTPFiftySlowBodiesAreAllCut(t *testing.T) {
	e := serveLimited(t, testLimits)
	hs := &httpServer{endpoint: "http://" + e.addr + mcpkit.HTTPPath, tr: e.tr}
	const n = 50
	results := make([]rawclient.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = e.trickle(head(e.addr, "POST", mcpkit.HTTPPath, aliceToken, "Content-Length: 100"), " ")
		})
	}
	if out, isErr := tool(t, hs.mustConnect(t, bobToken, "bob"), "wait", `{"ms":1}`); isErr {
		t.Errorf("a client beside fifty slow bodies = %s", out)
	}
	wg.Wait()
	open := 0
	for i, res := range results {
		if errs[i] != nil || !res.Closed || res.Status != http.StatusRequestTimeout || res.After > testBodyTimeout+closeSlack {
			open++
			if open <= 3 {
				t.Errorf("slow body %d: %d after %v, closed %v, %v", i, res.Status, res.After, res.Closed, errs[i])
			}
		}
	}
	if open > 0 {
		t.Errorf("%d of %d slow bodies were not cut within %v + %v", open, n, testBodyTimeout, closeSlack)
	}
}

// rawSession is one client session spoken over raw HTTP, to see what each request's
// response carries (the SDK's client would reconnect a cut stream and hide the cut).
type rawSession struct {
	t        *testing.T
	endpoint string
	client   *http.Client
	id       string
}

func (e *limitEnv) rawSession(t *testing.T) *rawSession {
	t.Helper()
	rs := &rawSession{t: t, endpoint: "http://" + e.addr + mcpkit.HTTPPath, client: &http.Client{Transport: e.tr}}
	res := rs.do("POST", initialize)
	rs.id = res.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if rs.id == "" {
		t.Fatal("initialize opened no client session")
	}
	res = rs.do("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	res.Body.Close()
	return rs
}

func (rs *rawSession) do(method, body string) *http.Response {
	rs.t.Helper()
	req, err := http.NewRequest(method, rs.endpoint, strings.NewReader(body))
	if err != nil {
		rs.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if rs.id != "" {
		req.Header.Set("Mcp-Session-Id", rs.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	res, err := rs.client.Do(req)
	if err != nil {
		rs.t.Fatal(err)
	}
	if res.StatusCode/100 != 2 {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		rs.t.Fatalf("%s %s: %d %s", method, body, res.StatusCode, b)
	}
	return res
}

// dataLines sends the data lines of an event stream on a channel, closed when the stream
// ends; the caller closes the body and then drains the channel.
func dataLines(body io.Reader) <-chan string {
	ch := make(chan string, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				ch <- d
			}
		}
	}()
	return ch
}

// await returns the first data line containing want, failing if the stream ends first
// or nothing comes within wait.
func await(t *testing.T, ch <-chan string, want string, wait time.Duration) {
	t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case d, ok := <-ch:
			if !ok {
				t.Fatalf("the stream ended before %s", want)
			}
			if strings.Contains(d, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no %s within %v", want, wait)
		}
	}
}

// The deadlines never end a long response, on a server whose backstop ReadTimeout is
// short too: the client session's GET stream delivers a notification past them, and a
// tool call that takes longer than them is answered on its own POST's stream.
func TestHTTPStreamsOutliveTheBodyDeadline(t *testing.T) {
	e := serveLimited(t, testLimits)
	rs := e.rawSession(t)
	backstop := testLimits.ReadHeaderTimeout + testLimits.BodyTimeout

	get := rs.do("GET", "")
	notes := dataLines(get.Body)
	defer func() {
		get.Body.Close()
		for range notes {
		}
	}()
	call := rs.do("POST", fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"ms":%d}}}`, (backstop+testBodyTimeout).Milliseconds()))
	answer := dataLines(call.Body)
	defer func() {
		call.Body.Close()
		for range answer {
		}
	}()
	await(t, answer, `{\"waited\":true}`, backstop+testBodyTimeout+closeSlack)

	mount(t, e.root, "late", echo()) // past every deadline: the tool list changes
	await(t, notes, "notifications/tools/list_changed", closeSlack)
}

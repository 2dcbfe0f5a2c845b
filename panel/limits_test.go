package panel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/bodylimit/rawclient"
)

// The bounds the body tests use: a short body deadline, and the slack the closing may
// take past it on a busy machine.
const (
	testBodyTimeout = time.Second
	closeSlack      = 3 * time.Second
)

// reserve replaces e's test server with one that set configures, as a runtime author's
// own http.Server would be.
func (e *env) reserve(set func(*http.Server)) {
	e.srv.Close()
	e.srv = httptest.NewUnstartedServer(e.h)
	set(e.srv.Config)
	e.srv.Start()
}

func (e *env) addr() string { return strings.TrimPrefix(e.srv.URL, "http://") }

// head is a raw request head for e: method, path, the token when auth, and extra headers.
func (e *env) head(method, path string, auth bool, extra ...string) rawclient.Head {
	h := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n", method, path, e.addr())
	if auth {
		h += "Authorization: Bearer " + e.h.Token() + "\r\n"
	}
	for _, x := range extra {
		h += x + "\r\n"
	}
	return rawclient.Head(h)
}

// errorOf decodes a refusal's code and message.
func errorOf(t *testing.T, body string) Error {
	t.Helper()
	var en Answer
	if err := json.Unmarshal([]byte(body), &en); err != nil || en.Error == nil {
		t.Fatalf("not a refusal: %q (%v)", body, err)
	}
	return *en.Error
}

// A request announcing 64 MiB and sending 100 bytes is answered 413 at once, before its
// body is read, with or without the token (the limit comes before the token check), and
// its connection is closed.
func TestAnnouncedBodyOverTheLimitIs413AtOnce(t *testing.T) {
	e := newEnv(t, nil)
	for _, auth := range []bool{true, false} {
		res, err := rawclient.Announce(e.addr(), e.head("POST", "/rpc/inventory", auth, "Content-Length: 67108864"), make([]byte, 100), 5*time.Second)
		if err != nil {
			t.Fatalf("auth %v: %v (the server waited for the body)", auth, err)
		}
		m := errorOf(t, res.Body)
		if res.Status != http.StatusRequestEntityTooLarge || m.Code != "too-large" || !res.Closed ||
			!strings.Contains(m.Message, "67108864") || !strings.Contains(m.Message, "1048576") || !strings.Contains(m.Message, "panel.Options.MaxBodyBytes") {
			t.Errorf("auth %v: %d %+v, closed %v", auth, res.Status, m, res.Closed)
		}
	}
}

// MaxBodyBytes is the largest body taken: one byte more is refused, announced or not.
func TestBodyAtTheLimit(t *testing.T) {
	e := newEnv(t, &Options{MaxBodyBytes: 1024})
	at := "{}" + strings.Repeat(" ", 1022)
	if res, body := e.do("POST", "/rpc/inventory", at, true, nil); res.StatusCode != 200 {
		t.Errorf("a body of exactly MaxBodyBytes = %d %s", res.StatusCode, body)
	}
	over := at + " "
	res, err := rawclient.Announce(e.addr(), e.head("POST", "/rpc/inventory", true, "Content-Length: 1025"), []byte(over), 5*time.Second)
	if err != nil || res.Status != 413 || errorOf(t, res.Body).Code != "too-large" {
		t.Errorf("announced one byte over = %+v, %v", res, err)
	}
	// Chunked, the length is known only by reading: the read stops at the limit.
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(over), over)
	res, err = rawclient.Announce(e.addr(), e.head("POST", "/rpc/inventory", true, "Transfer-Encoding: chunked"), []byte(chunked), 5*time.Second)
	if err != nil || res.Status != 413 || !strings.Contains(errorOf(t, res.Body).Message, "MaxBodyBytes") {
		t.Errorf("chunked one byte over = %+v, %v", res, err)
	}
}

// trickle sends one of e's requests whose body arrives a byte every 200 ms, far slower
// than the body deadline allows.
func (e *env) trickle(head rawclient.Head, unit string) (rawclient.Result, error) {
	return rawclient.Trickle(e.addr(), head, []byte(unit), 200*time.Millisecond, testBodyTimeout+closeSlack+5*time.Second)
}

// A body that trickles is cut with 408 within the body deadline, whether it announced its
// length or is chunked; a client without the token that trickles is cut too. A normal
// request beside them is answered meanwhile.
func TestSlowBodyIsCutWithinTheDeadline(t *testing.T) {
	e := newEnv(t, &Options{BodyTimeout: testBodyTimeout})
	cases := []struct {
		name string
		head rawclient.Head
		unit string
		want int // 0: any answer, or none, as long as the connection closes
	}{
		{"content-length", e.head("POST", "/rpc/inventory", true, "Content-Length: 100"), " ", http.StatusRequestTimeout},
		{"chunked", e.head("POST", "/rpc/inventory", true, "Transfer-Encoding: chunked"), "1\r\n \r\n", http.StatusRequestTimeout},
		{"no token", e.head("POST", "/rpc/inventory", false, "Content-Length: 100"), " ", 0},
		{"a page with a body", e.head("GET", "/", true, "Content-Length: 100"), " ", 0},
	}
	results := make([]rawclient.Result, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Go(func() { results[i], errs[i] = e.trickle(c.head, c.unit) })
	}
	if res, body := e.do("POST", "/rpc/inventory", "{}", true, nil); res.StatusCode != 200 {
		t.Errorf("a normal request beside the slow ones = %d %s", res.StatusCode, body)
	}
	wg.Wait()
	for i, c := range cases {
		res := results[i]
		if errs[i] != nil || !res.Closed || res.After > testBodyTimeout+closeSlack {
			t.Errorf("%s: still open after %v (closed %v, %v); the bound is %v", c.name, res.After, res.Closed, errs[i], testBodyTimeout)
			continue
		}
		if c.want == 0 {
			continue
		}
		m := errorOf(t, res.Body)
		if res.Status != c.want || m.Code != "body-timeout" || !strings.Contains(m.Message, "panel.Options.BodyTimeout") || !strings.Contains(m.Message, "1s") {
			t.Errorf("%s: %d %+v", c.name, res.Status, m)
		}
	}
}

// Fifty clients trickling their bodies at once are all cut within the deadline.
func TestFiftySlowBodiesAreAllCut(t *testing.T) {
	e := newEnv(t, &Options{BodyTimeout: testBodyTimeout})
	const n = 50
	results := make([]rawclient.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = e.trickle(e.head("POST", "/rpc/inventory", true, "Content-Length: 100"), " ")
		})
	}
	if res, body := e.do("POST", "/rpc/inventory", "{}", true, nil); res.StatusCode != 200 {
		t.Errorf("a normal request beside fifty slow ones = %d %s", res.StatusCode, body)
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

// The body deadline does not end an event stream, even in a server whose ReadTimeout
// equals it: on HTTP/1.1 a read deadline that passes while the stream is open would
// cancel the request, so the handler lifts it for a request without a body.
func TestEventStreamOutlivesTheBodyDeadline(t *testing.T) {
	e := newEnv(t, &Options{BodyTimeout: testBodyTimeout})
	e.reserve(func(s *http.Server) { s.ReadTimeout = testBodyTimeout; s.ReadHeaderTimeout = testBodyTimeout })
	s := e.stream("")
	if ev := s.next(); !isConnected(ev, false) {
		t.Fatalf("first event = %+v", ev)
	}
	time.Sleep(2*testBodyTimeout + testBodyTimeout/2)
	// A verb after the deadline: its body is read within its own deadline.
	if res, body := e.do("POST", "/rpc/inventory", "{}", true, nil); res.StatusCode != 200 {
		t.Fatalf("a verb past the bound = %d %s", res.StatusCode, body)
	}
	e.define(clockHost, "")
	for {
		ev := s.next() // fails if the stream ended
		if ev.name == "cordis/definition-changed" {
			break
		}
	}
}

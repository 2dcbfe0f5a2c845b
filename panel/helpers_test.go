package panel

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// env is a runner with a panel served on a loopback test server.
type env struct {
	t    testing.TB
	root *kit.Context
	r    *runner.Runner
	h    *Handler
	srv  *httptest.Server
	stop func() // shuts it all down, once; the test's cleanup does it too
}

func newEnv(t testing.TB, opts *Options) *env {
	t.Helper()
	return newEnvWith(t, opts, serving{})
}

// serving says how an env serves its panel: on ln (nil: a new loopback listener), through
// wrap (nil: the handler itself), over a runner whose Options tune changes (nil: the
// tests' defaults).
type serving struct {
	ln   net.Listener
	wrap func(http.Handler) http.Handler
	tune func(*runner.Options)
}

func newEnvWith(t testing.TB, opts *Options, how serving) *env {
	t.Helper()
	e := &env{t: t, root: kit.New(nil)}
	ropts := &runner.Options{Timeouts: &sandbox.Timeouts{VM: time.Second, Mount: time.Second, Call: time.Second},
		MaxPluginsPerSession: 1 << 20, MaxPackagesPerSession: 1 << 20} // BenchmarkThousandDefinitions holds 1,000 Plugins in one session
	if how.tune != nil {
		how.tune(ropts)
	}
	r, err := runner.New(e.root, ropts)
	if err != nil {
		t.Fatal(err)
	}
	e.r = r
	if opts == nil {
		opts = &Options{}
	}
	if opts.Token == "" {
		opts.Token = "test-token"
	}
	h, err := New(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.h = h
	var served http.Handler = h
	if how.wrap != nil {
		served = how.wrap(h)
	}
	e.srv = httptest.NewUnstartedServer(served)
	if how.ln != nil {
		e.srv.Listener.Close()
		e.srv.Listener = how.ln
	}
	e.srv.Start()
	e.stop = sync.OnceFunc(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
		e.srv.Close()
		if err := r.Dispose(ctx); err != nil {
			t.Errorf("Dispose: %v", err)
		}
		if err := e.root.Fiber().Dispose(ctx); err != nil {
			t.Errorf("root dispose: %v", err)
		}
	})
	t.Cleanup(e.stop)
	return e
}

func as(session string) context.Context { return kit.WithSession(context.Background(), session) }

func ptr[T any](v T) *T { return &v }

const clockHost = `harness.handle('now', (args) => ({ t: 42, args }));
return { name: 'clock', apply(ctx) {} }`

// define defines a Package of a new Plugin for session s1.
func (e *env) define(host, client string) dynamic.DefineOutput {
	e.t.Helper()
	return e.defineAs(dynamic.Target{Kind: "new", IDPrefix: "clock"}, host, client)
}

// defineAs defines the Package "Clock" of the Plugin ref names for session s1, with the
// halves that are not empty.
func (e *env) defineAs(ref dynamic.Target, host, client string) dynamic.DefineOutput {
	e.t.Helper()
	in := dynamic.DefineInput{Plugin: ref, Name: "Clock", Purpose: "Shows the time."}
	if host != "" {
		in.Code.Host = ptr(host)
	}
	if client != "" {
		in.Code.Client = ptr(client)
	}
	out, err := e.r.Define(as("s1"), in)
	if err != nil {
		e.t.Fatalf("Define: %v", err)
	}
	return out
}

// do sends a request with the operator's token as a bearer unless auth is false.
func (e *env) do(method, path, body string, auth bool, hdr map[string]string) (*http.Response, string) {
	e.t.Helper()
	token := ""
	if auth {
		token = e.h.Token()
	}
	return e.doAs(token, method, path, body, hdr)
}

// doAs sends a request with token as a bearer ("": none).
func (e *env) doAs(token, method, path, body string, hdr map[string]string) (*http.Response, string) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// client is a Client of the env's panel with token (the operator's when "").
func (e *env) client(token string) *Client {
	e.t.Helper()
	if token == "" {
		token = e.h.Token()
	}
	c, err := NewClient(e.srv.URL+e.h.opts.Base, token, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// call calls a verb with the operator's token through the Client and gives its answer as
// an Answer, with the HTTP status.
func (e *env) call(verb string, args any) (status int, en Answer) {
	e.t.Helper()
	var v json.RawMessage
	err := e.client("").Call(context.Background(), verb, args, &v)
	var refused *Error
	switch {
	case err == nil:
		return http.StatusOK, Answer{OK: true, Value: v}
	case errors.As(err, &refused):
		return refused.Status, Answer{Error: refused}
	}
	e.t.Fatalf("%s: %v", verb, err)
	return 0, Answer{}
}

// callAs posts a verb with token and decodes the answer; body is the answer as sent, for
// the tests that compare answers byte for byte.
func (e *env) callAs(token, verb string, args any) (status int, en Answer, body string) {
	e.t.Helper()
	b := []byte("{}")
	if args != nil {
		b, _ = json.Marshal(args)
	}
	res, body := e.doAs(token, "POST", e.h.opts.Base+"rpc/"+verb, string(b), map[string]string{"Content-Type": "application/json"})
	if err := json.Unmarshal([]byte(body), &en); err != nil {
		e.t.Fatalf("%s: answer %q is not an Answer: %v", verb, body, err)
	}
	return res.StatusCode, en, body
}

// value calls a verb that must succeed and decodes its value into v.
func (e *env) value(verb string, args, v any) {
	e.t.Helper()
	if err := e.client("").Call(context.Background(), verb, args, v); err != nil {
		e.t.Fatalf("%s: %v", verb, err)
	}
}

// sse is an open event stream, read through the Client by a goroutine that close waits
// for.
type sse struct {
	t      testing.TB
	es     *EventStream
	evs    chan sseEvent
	done   chan struct{}
	cancel context.CancelFunc
}

// sseEvent is one event as the tests look at it: its name, id, data as sent, and data
// decoded (nil for an event the Client does not know).
type sseEvent struct {
	name, id, data string
	payload        Payload
}

// stream opens the event stream with the operator's token (with Last-Event-ID when last is
// set).
func (e *env) stream(last string) *sse {
	e.t.Helper()
	return e.streamAs(e.h.Token(), last)
}

// streamAs opens the event stream with token.
func (e *env) streamAs(token, last string) *sse {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	es, err := e.client(token).Events(ctx, last)
	if err != nil {
		cancel()
		e.t.Fatalf("events: %v", err)
	}
	s := newSSE(ctx, cancel, e.t, es)
	e.t.Cleanup(s.close)
	return s
}

// newSSE reads es until ctx ends (cancel) or es ends; t, when not nil, is told of events
// whose data does not decode.
func newSSE(ctx context.Context, cancel context.CancelFunc, t testing.TB, es *EventStream) *sse {
	s := &sse{t: t, es: es, evs: make(chan sseEvent, 64), done: make(chan struct{}), cancel: cancel}
	go s.read(ctx)
	return s
}

func (s *sse) read(ctx context.Context) {
	defer close(s.done)
	defer close(s.evs)
	for {
		ev, err := s.es.Next()
		if err != nil && ev.Name == "" {
			return // the stream ended
		}
		switch {
		case s.t == nil:
		case err != nil:
			s.t.Errorf("event %s: %v", ev.Name, err)
		case ev.Payload == nil:
			s.t.Errorf("the handler sent %s, an event the Client does not know (add its type to payloads)", ev.Name)
		}
		select {
		case s.evs <- sseEvent{name: ev.Name, id: ev.ID, data: string(ev.Data), payload: ev.Payload}:
		case <-ctx.Done():
			return
		}
	}
}

// next returns the next event, failing after 3 s.
func (s *sse) next() sseEvent {
	s.t.Helper()
	select {
	case ev, ok := <-s.evs:
		if !ok {
			s.t.Fatal("the event stream ended")
		}
		return ev
	case <-time.After(3 * time.Second):
		s.t.Fatal("no event within 3 s")
	}
	return sseEvent{}
}

// ended reports whether the stream ends within 3 s.
func (s *sse) ended() bool {
	timeout := time.After(3 * time.Second)
	for {
		select {
		case _, ok := <-s.evs:
			if !ok {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

// close ends the stream and waits for its reader; closing twice is harmless.
func (s *sse) close() {
	s.cancel()
	s.es.Close()
	<-s.done
}

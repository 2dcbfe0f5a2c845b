package cordiskit_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit"
	"github.com/cordiskit/cordiskit/internal/helpdesk"
	"github.com/cordiskit/cordiskit/internal/helpdesk/cordisapi"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/panel"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Close from many goroutines at once, and again later: one shutdown, the same result
// for every call, and -race finds no race.
func TestCloseConcurrentAndIdempotent(t *testing.T) {
	rt, err := cordiskit.New(nil, &cordiskit.Options{StoreFile: t.TempDir() + "/definitions.db"})
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { errs[i] = rt.Close(context.Background()) })
	}
	wg.Wait()
	errs = append(errs, rt.Close(context.Background()))
	for i, err := range errs {
		if err != nil {
			t.Errorf("Close #%d = %v", i, err)
		}
	}
}

// Close joins the failures of its pieces, each naming its piece, and every later call
// returns that same error: here a mount's cleanup throws.
func TestCloseJoinsErrors(t *testing.T) {
	rt, err := cordiskit.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mount := json.RawMessage(`{"code":"return (ctx) => { ctx.effect(() => { throw new Error('the disposer failed') }) }"}`)
	if _, err := rt.Invoker().InvokeSession(context.Background(), "ada", "cordis_mount", mount); err != nil {
		t.Fatal(errors.Join(err, rt.Close(context.Background())))
	}
	err = rt.Close(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cordiskit: closing the toolset") || !strings.Contains(err.Error(), "the disposer failed") {
		t.Fatalf("Close = %v; want the mount's failure, named as the toolset's", err)
	}
	if again := rt.Close(context.Background()); again != err {
		t.Errorf("a second Close = %v; want the first one's %v", again, err)
	}
}

// serving is a Runtime serving MCP to one in-memory client whose open_ticket blocks in
// block until it returns.
type serving struct {
	rt      *cordiskit.Runtime
	client  *mcp.ClientSession
	served  chan error // ServeMCP's result
	entered chan struct{}
}

func serveBlocking(t *testing.T, block func(ctx context.Context) error) *serving {
	t.Helper()
	ctx := context.Background()
	rt, err := cordiskit.New(nil, &cordiskit.Options{Catalog: cordisapi.Catalog, MCP: &mcpkit.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	s := &serving{rt: rt, served: make(chan error, 1), entered: make(chan struct{}, 1)}
	err = cordiskit.AddTool(rt, helpdesk.OpenTicket, func(ctx context.Context, _ helpdesk.Ticket) (helpdesk.TicketNumber, error) {
		s.entered <- struct{}{}
		return helpdesk.TicketNumber{}, block(ctx)
	})
	if err != nil {
		t.Fatal(errors.Join(err, rt.Close(ctx)))
	}
	st, ct := mcp.NewInMemoryTransports()
	go func() { s.served <- rt.ServeMCP(ctx, st) }()
	s.client, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(errors.Join(err, rt.Close(ctx), <-s.served))
	}
	return s
}

// call calls open_ticket in the background; its result arrives on the channel.
func (s *serving) call() chan error {
	done := make(chan error, 1)
	go func() {
		res, err := s.client.CallTool(context.Background(), &mcp.CallToolParams{Name: "open_ticket", Arguments: map[string]any{"subject": "x"}})
		if err == nil && !res.IsError {
			err = errors.New("the call succeeded")
		}
		done <- err
	}()
	<-s.entered
	return done
}

// Close while a call is in flight over MCP: the call is cancelled, ServeMCP returns
// nil, and Close completes — no deadlock, no panic.
func TestCloseWhileACallIsInFlight(t *testing.T) {
	s := serveBlocking(t, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	call := s.call()
	if err := s.rt.Close(context.Background()); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := <-s.served; err != nil {
		t.Errorf("ServeMCP after Close = %v; want nil", err)
	}
	<-call // an error result or a closed connection, either way over
	s.client.Close()
}

// A tool that ignores cancellation cannot hold Close past its ctx: Close returns the
// context's error, having taken down everything else, and the rest ends when the tool
// does.
func TestCloseBoundedByItsContext(t *testing.T) {
	release := make(chan struct{})
	s := serveBlocking(t, func(context.Context) error { <-release; return errors.New("released") })
	call := s.call()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := s.rt.Close(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close with a tool that never returns = %v; want context.DeadlineExceeded", err)
	}
	// A second Close waits for the first, which is complete: the same result.
	if again := s.rt.Close(context.Background()); again != err {
		t.Errorf("a second Close = %v; want %v", again, err)
	}
	close(release)
	<-call
	s.client.Close()
	if err := <-s.served; err != nil {
		t.Errorf("ServeMCP = %v; want nil (Close ended it)", err)
	}
}

// Close ends the panel's event streams and its server: a page that was listening sees
// its stream end, and the address no longer answers.
func TestCloseEndsThePanel(t *testing.T) {
	ln := listen(t)
	token := rand.Text()
	rt, err := cordiskit.New(nil, &cordiskit.Options{Panel: &panel.Options{Token: token}, PanelListener: ln})
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/events"
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(errors.Join(err, rt.Close(context.Background())))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET /events: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	if err := rt.Close(context.Background()); err != nil {
		t.Errorf("Close with a stream open = %v", err)
	}
	io.Copy(io.Discard, resp.Body) // returns: the stream ended
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("the panel's address still accepts connections after Close")
	}
}

// Close ends ServeMCPHTTP, which returns nil and closes its listener.
func TestCloseEndsServeMCPHTTP(t *testing.T) {
	ln := listen(t)
	rt, err := cordiskit.New(nil, &cordiskit.Options{MCP: &mcpkit.Options{HTTP: &mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: rand.Text()}}}}})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- rt.ServeMCPHTTP(context.Background(), ln) }()
	resp, err := http.Post("http://"+ln.Addr().String()+mcpkit.HTTPPath, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(errors.Join(err, rt.Close(context.Background()), <-served))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without a token: %s; want 401", resp.Status)
	}
	if err := rt.Close(context.Background()); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("ServeMCPHTTP after Close = %v; want nil", err)
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after ServeMCPHTTP returned = %v; want net.ErrClosed", err)
	}
}

// Once Close began, nothing new is served; the listener handed over is closed.
func TestServeAfterClose(t *testing.T) {
	rt, err := cordiskit.New(nil, &cordiskit.Options{MCP: &mcpkit.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, _ := mcp.NewInMemoryTransports()
	if err := rt.ServeMCP(context.Background(), st); !errors.Is(err, cordiskit.ErrClosed) {
		t.Errorf("ServeMCP after Close = %v; want ErrClosed", err)
	}
	if err := rt.ServeMCP(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "needs a transport") {
		t.Errorf("ServeMCP(nil) = %v; want an error asking for a transport", err)
	}
	ln := listen(t)
	if err := rt.ServeMCPHTTP(context.Background(), ln); !errors.Is(err, cordiskit.ErrClosed) {
		t.Errorf("ServeMCPHTTP after Close = %v; want ErrClosed", err)
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept on the refused listener = %v; want net.ErrClosed", err)
	}
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

// Close while a call is in flight over HTTP: the call is cancelled, ServeMCPHTTP
// returns nil, and Close completes.
func TestCloseWhileAnHTTPCallIsInFlight(t *testing.T) {
	ctx := context.Background()
	token := rand.Text()
	rt, err := cordiskit.New(nil, &cordiskit.Options{Catalog: cordisapi.Catalog, MCP: &mcpkit.Options{HTTP: &mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: token}}}}})
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{}, 1)
	err = cordiskit.AddTool(rt, helpdesk.OpenTicket, func(ctx context.Context, _ helpdesk.Ticket) (helpdesk.TicketNumber, error) {
		entered <- struct{}{}
		<-ctx.Done()
		return helpdesk.TicketNumber{}, ctx.Err()
	})
	if err != nil {
		t.Fatal(errors.Join(err, rt.Close(ctx)))
	}
	ln := listen(t)
	served := make(chan error, 1)
	go func() { served <- rt.ServeMCPHTTP(ctx, ln) }()
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + mcpkit.HTTPPath,
		HTTPClient: &http.Client{Transport: bearer{token, &http.Transport{DisableKeepAlives: true}}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(errors.Join(err, rt.Close(ctx), <-served))
	}
	call := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_ticket", Arguments: map[string]any{"subject": "x"}})
		call <- err
	}()
	<-entered
	if err := rt.Close(ctx); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("ServeMCPHTTP after Close = %v; want nil", err)
	}
	<-call
	cs.Close()
}

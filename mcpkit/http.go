package mcpkit

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPPath is where ServeHTTP answers MCP requests: a client's endpoint is
// http://ADDR/mcp.
const HTTPPath = "/mcp"

// HTTPHandler returns an http.Handler that serves s over MCP's streamable HTTP transport
// (mcp.NewStreamableHTTPHandler) to the clients Options.HTTP admits: a request with a
// foreign Origin gets 403, one without an accepted bearer token 401, one on a client
// session that another token opened 403. Every client session it opens (one
// Mcp-Session-Id) is a client session of s like any other: the kit session its token
// proves, its own messages. The transport is stateful: a stateless request has no client
// session to own Plugins or receive messages, so opts.Stateless is ignored. A nil opts
// means the SDK's defaults (which refuse a loopback request whose Host header is not
// loopback). Before any of it, the request's body is bounded (HTTPOptions.Limits; see
// the package doc, "Limits over HTTP"). It fails with ErrNoHTTPToken when Options.HTTP
// accepts no token.
func (s *Server) HTTPHandler(opts *mcp.StreamableHTTPOptions) (http.Handler, error) {
	var o mcp.StreamableHTTPOptions
	if opts != nil {
		o = *opts
	}
	o.Stateless = false
	l := limitsOf(s.opts.HTTP, &o)
	o.MaxRequestBodyBytes = l.MaxBodyBytes
	h, err := s.guard.wrap(l.read(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &o)))
	if err != nil {
		return nil, err
	}
	return l.guard(h), nil // the body's bounds before anything, the token check included
}

// CloseSessions ends every client session of s and waits for the goroutines s keeps for
// them. A server with many clients (an HTTP one) calls it at shutdown, after no more
// requests arrive (http.Server.Shutdown) and before Close. A client's event stream is an
// open request until its session ends, so cancel the requests' context first (as
// ServeHTTP does through http.Server.BaseContext), or Shutdown waits for the clients.
func (s *Server) CloseSessions() error {
	var err error
	for ss := range s.mcp.Sessions() {
		err = errors.Join(err, ss.Close())
	}
	s.watches.Wait()
	return err
}

// ServeHTTP serves the tools of c's runtime to any number of MCP clients over the
// streamable HTTP transport on ln, at HTTPPath, until ctx is done; each client is the
// session its bearer token proves (Options.HTTP; without a token configured it fails with
// ErrNoHTTPToken, and closes ln). Then it shuts down: open requests are cancelled (a client's event stream
// would otherwise hold the server open), the server waits for their handlers, ends every
// client session, detaches from the runtime and closes ln. It returns nil after a
// shutdown that ctx began, as Serve does for a client that hung up. A nil opts means
// defaults.
func ServeHTTP(ctx context.Context, c *kit.Context, ln net.Listener, opts *Options) (err error) {
	s, err := NewServer(c, opts)
	if err != nil {
		return errors.Join(err, ln.Close())
	}
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	// A call's context is its client session's, not its HTTP request's: cancelled with
	// base, the calls in flight end before CloseSessions waits for them.
	s.mcp.AddReceivingMiddleware(cancelWith(base))
	h, err := s.HTTPHandler(&mcp.StreamableHTTPOptions{Logger: s.logger})
	if err != nil {
		return errors.Join(err, s.Close(context.WithoutCancel(ctx)), ln.Close())
	}
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, h)
	srv := limitsOf(s.opts.HTTP, nil).server(mux)
	srv.BaseContext = func(net.Listener) context.Context { return base }
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()

	served := false
	select {
	case <-ctx.Done():
	case err = <-done: // the listener failed
		served = true
	}
	cancel()
	wctx := context.WithoutCancel(ctx)
	err = errors.Join(err, srv.Shutdown(wctx))
	if !served {
		if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
	}
	return errors.Join(err, s.CloseSessions(), s.Close(wctx))
}

// cancelWith cancels the context of every request when ctx ends.
func cancelWith(ctx context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(rctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			rctx, cancel := context.WithCancelCause(rctx)
			defer cancel(nil)
			defer context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })()
			return next(rctx, method, req)
		}
	}
}

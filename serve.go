package cordiskit

import (
	"context"
	"errors"
	"net"

	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A serve is one ServeMCP or ServeMCPHTTP call in progress: Close cancels it.
type serve struct {
	cancel context.CancelCauseFunc
}

// ServeMCP serves the runtime's tools over t — &mcp.StdioTransport{} for the process
// that started this one, or any other transport of one client — until the client goes
// away, ctx is done or Close is called, with an MCP server built from
// Options.MCP. When ctx ends or Close is called, the calls in flight are cancelled
// and answered before it returns. It returns nil when Close ended it, and otherwise what
// mcpkit.Serve would. Each call is one client session; calls may run at once. It fails without
// serving when Options.MCP is nil or Close has begun (ErrClosed).
func (rt *Runtime) ServeMCP(ctx context.Context, t mcp.Transport) error {
	if t == nil {
		return errors.New("cordiskit: ServeMCP needs a transport, such as &mcp.StdioTransport{}")
	}
	sctx, end, err := rt.beginServe(ctx)
	if err != nil {
		return err
	}
	defer end()
	s, err := mcpkit.NewServer(rt.root, rt.mcpOptions())
	if err != nil {
		return err
	}
	s.MCP().AddReceivingMiddleware(cancelWith(sctx))
	err = s.Run(sctx, t)
	return errors.Join(endedByClose(ctx, sctx, err), s.Close(context.WithoutCancel(ctx)))
}

// cancelWith cancels the context of every request when ctx ends. The SDK's Run, once its
// context ends, waits for the calls in flight before it returns; their contexts are the
// connection's, so without this a call waiting on its context would hold Run, and
// Close, forever.
func cancelWith(ctx context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(rctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			rctx, cancel := context.WithCancelCause(rctx)
			defer cancel(nil)
			stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
			defer stop()
			return next(rctx, method, req)
		}
	}
}

// ServeMCPHTTP serves the runtime's tools over MCP's streamable HTTP transport on ln (at
// mcpkit.HTTPPath) to any number of clients, each the session its bearer token proves
// (Options.MCP.HTTP), until ctx is done or Close is called; then it cancels open
// requests, ends every client session and closes ln, as mcpkit.ServeHTTP does. It
// returns nil after a shutdown that ctx or Close began. It fails without serving, and
// closes ln, when Options.MCP is nil or Close has begun (ErrClosed).
func (rt *Runtime) ServeMCPHTTP(ctx context.Context, ln net.Listener) error {
	if ln == nil {
		return errors.New("cordiskit: ServeMCPHTTP needs a listener, such as net.Listen(\"tcp\", \"127.0.0.1:0\") returns")
	}
	sctx, end, err := rt.beginServe(ctx)
	if err != nil {
		return errors.Join(err, ln.Close())
	}
	defer end()
	return endedByClose(ctx, sctx, mcpkit.ServeHTTP(sctx, rt.root, ln, rt.mcpOptions()))
}

// beginServe records a serve, unless Close has begun or there is nothing to serve with:
// sctx is ctx, also cancelled (with cause ErrClosed) by Close; end records its return.
func (rt *Runtime) beginServe(ctx context.Context) (sctx context.Context, end func(), err error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	switch {
	case rt.closing:
		return nil, nil, ErrClosed
	case rt.opts.MCP == nil:
		return nil, nil, errors.New("cordiskit: no MCP server to serve: set Options.MCP (&mcpkit.Options{} for defaults)")
	}
	sctx, cancel := context.WithCancelCause(ctx)
	s := &serve{cancel: cancel}
	rt.serves[s] = struct{}{}
	return sctx, func() {
		cancel(nil)
		rt.mu.Lock()
		delete(rt.serves, s)
		if rt.closing && len(rt.serves) == 0 {
			close(rt.drained)
		}
		rt.mu.Unlock()
	}, nil
}

// endedByClose is err, or nil when Close ended the serve (and ctx, the caller's, did not).
func endedByClose(ctx, sctx context.Context, err error) error {
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(sctx), ErrClosed) {
		return nil
	}
	return err
}

// mcpOptions are the options every serve builds its MCP server with: Options.MCP, with
// the runner as the source of messages, and as what a client session's arrival moves
// the session's runs to (Runner.TakeSession: with a store that processes share, such as
// runner/pgstore, a session the balancer moved here runs here), unless it names others.
func (rt *Runtime) mcpOptions() *mcpkit.Options {
	o := *rt.opts.MCP
	if rt.runner != nil {
		if o.Messages == nil {
			o.Messages = rt.runner
		}
		if o.OnSession == nil {
			o.OnSession = rt.takeSession
		}
	}
	return &o
}

// takeSession moves session's runs to this process (Runner.TakeSession), logging what
// fails: the client's requests are served either way, and a run elsewhere is refused
// with a message that says so.
func (rt *Runtime) takeSession(session string) {
	if session == "" {
		return
	}
	if err := rt.runner.TakeSession(context.Background(), session); err != nil {
		rt.root.Logger().Warn("cordiskit: cannot move the session's runs to this process", "session", session, "err", err)
	}
}

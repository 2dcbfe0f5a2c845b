package mcpkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultShutdownTimeout is how long [Server.Run] waits, when [Options].ShutdownTimeout
// is zero, for the calls still running once the client has closed its input.
const DefaultShutdownTimeout = 10 * time.Second

// drainTransport connects its transport's connections as drainConns, so a session whose
// input ends (stdin at EOF) still answers the calls it read; see drainConn.
type drainTransport struct {
	mcp.Transport
	timeout time.Duration
}

func (t drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: conn, timeout: t.timeout, pending: map[jsonrpc.ID]*pendingCall{},
		answered: make(chan struct{}, 1), closed: make(chan struct{})}, nil
}

// A drainConn holds back the end of its connection's input until the calls read from it
// are answered, bounded by timeout. The SDK's session refuses every write once a read has
// failed, and cancels the calls still running (modelcontextprotocol/go-sdk#1061): without
// this, a client that writes its requests and closes its input at once (a one-shot pipe)
// receives no answer at all. Calls still running at the deadline are answered with an
// error here, and then cancelled by the session when the read error reaches it.
//
// The wrapper hides the SDK connection's unexported session hook, which only rejects
// JSON-RPC batches from clients of protocol 2025-06-18 and later; such a batch is served.
type drainConn struct {
	mcp.Connection
	timeout time.Duration

	mu       sync.Mutex
	pending  map[jsonrpc.ID]*pendingCall // calls read and not yet answered
	gaveUp   bool                        // the deadline passed: late answers are dropped
	answered chan struct{}               // a pending call was answered (capacity 1)

	closeOnce sync.Once
	closed    chan struct{}
}

// A pendingCall is a call read from the client; writing is set while its answer is being
// written, so the deadline does not answer it twice.
type pendingCall struct {
	method  string
	writing bool
}

// Read returns the next message, recording the calls. When the input ends it waits until
// every call read is answered (see drain) before it returns the error.
func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.drain(ctx)
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.pending[req.ID] = &pendingCall{method: req.Method}
		c.mu.Unlock()
	}
	return msg, nil
}

// Write writes msg; an answer to a call the deadline already answered is dropped.
func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.Connection.Write(ctx, msg)
	}
	c.mu.Lock()
	call := c.pending[resp.ID]
	if call == nil && c.gaveUp {
		c.mu.Unlock()
		return nil // the client has its answer: the cancellation error
	}
	if call != nil {
		call.writing = true
	}
	c.mu.Unlock()
	err := c.Connection.Write(ctx, msg)
	if call != nil {
		c.settle(resp.ID)
	}
	return err
}

// Close closes the connection and ends a drain in progress.
func (c *drainConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// settle forgets an answered call and wakes drain.
func (c *drainConn) settle(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

// drain waits until every call read has been answered. At the deadline it answers those
// still running with an error, then waits for the answers being written when it came.
// Closing the connection or ending ctx ends the wait.
func (c *drainConn) drain(ctx context.Context) {
	deadline := time.NewTimer(c.timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-deadline.C:
			c.giveUp(ctx)
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		}
	}
}

// giveUp answers every pending call not being answered already with a cancellation error.
func (c *drainConn) giveUp(ctx context.Context) {
	c.mu.Lock()
	c.gaveUp = true
	late := map[jsonrpc.ID]string{}
	for id, call := range c.pending {
		if !call.writing {
			late[id] = call.method
			delete(c.pending, id)
		}
	}
	c.mu.Unlock()
	for id, method := range late {
		_ = c.Connection.Write(ctx, c.cancelled(id, method)) // a failed write has no one to tell
	}
}

// cancelled is the answer to a call that outlived the deadline: a tool error for
// tools/call (so a model sees it, like every tool failure), a JSON-RPC error otherwise.
func (c *drainConn) cancelled(id jsonrpc.ID, method string) *jsonrpc.Response {
	msg := fmt.Sprintf("%s was cancelled: the client closed its input while the call ran, and it did not finish within the shutdown timeout (%v); keep the input open until every answer has arrived, or raise mcpkit.Options.ShutdownTimeout", method, c.timeout)
	if method == "tools/call" {
		if res, err := json.Marshal(toolError(errors.New(msg))); err == nil {
			return &jsonrpc.Response{ID: id, Result: res}
		}
	}
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}}
}

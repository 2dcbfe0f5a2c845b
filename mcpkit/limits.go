package mcpkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cordiskit/cordiskit/internal/bodylimit"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPLimits bounds what one request may hold of a Server over HTTP: the size of its
// body and the time the body takes to arrive (ServeHTTP and HTTPHandler), and the head
// and idle connections of the http.Server that ServeHTTP creates. The zero value means
// the defaults. See the package doc, "Limits over HTTP".
type HTTPLimits struct {
	// MaxBodyBytes bounds a request's body: a Content-Length over it is answered 413
	// before a byte of the body is read, a longer body 413 when it passes the limit.
	// Zero means DefaultMaxBodyBytes. Negative means no bound: only for a handler behind
	// something that bounds bodies itself. HTTPHandler's
	// StreamableHTTPOptions.MaxRequestBodyBytes, when set, takes its place.
	MaxBodyBytes int64
	// BodyTimeout bounds how long a request's body may take to arrive, from when the
	// handler starts; a slower one is answered 408 and its connection closed. Zero means
	// DefaultBodyTimeout. Negative leaves the connection's read deadline to the server.
	BodyTimeout time.Duration

	// ReadHeaderTimeout, IdleTimeout and MaxHeaderBytes configure the http.Server that
	// ServeHTTP creates (HTTPHandler leaves them to the server it is mounted in): how long
	// a request's head may take to arrive, how long a connection may wait for its next
	// request, and how large a head may be (431 past it). Zero or negative means
	// DefaultReadHeaderTimeout, DefaultIdleTimeout, DefaultMaxHeaderBytes.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
}

// The defaults of HTTPLimits.
const (
	DefaultMaxBodyBytes      = mcp.DefaultMaxRequestBodyBytes // 4 MiB
	DefaultBodyTimeout       = 30 * time.Second
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = time.Minute
	DefaultMaxHeaderBytes    = 64 << 10
)

// httpLimits is HTTPLimits with its defaults applied, and the option each bound came
// from, for the messages.
type httpLimits struct {
	HTTPLimits
	maxFrom string // the option that set MaxBodyBytes
}

// limitsOf applies the defaults to o's limits; sdk, if non-nil, are the options
// HTTPHandler was given.
func limitsOf(o *HTTPOptions, sdk *mcp.StreamableHTTPOptions) httpLimits {
	var l httpLimits
	if o != nil {
		l.HTTPLimits = o.Limits
	}
	l.maxFrom = "mcpkit.HTTPLimits.MaxBodyBytes"
	if sdk != nil && sdk.MaxRequestBodyBytes != 0 {
		l.MaxBodyBytes, l.maxFrom = sdk.MaxRequestBodyBytes, "mcp.StreamableHTTPOptions.MaxRequestBodyBytes"
	}
	if l.MaxBodyBytes == 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.BodyTimeout == 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	return l
}

// server is the http.Server ServeHTTP creates for h. Its ReadTimeout is a backstop for
// the paths the MCP handler does not serve (a 404's unread body): the handler sets its
// own deadline, and net/http lifts the read deadline once a body is read, so neither
// ends an event stream.
func (l httpLimits) server(h http.Handler) *http.Server {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: l.ReadHeaderTimeout, IdleTimeout: l.IdleTimeout, MaxHeaderBytes: l.MaxHeaderBytes}
	if l.BodyTimeout > 0 {
		srv.ReadTimeout = l.ReadHeaderTimeout + l.BodyTimeout
	}
	return srv
}

// guard is the outermost check of every request, before the token: a Content-Length
// over the limit is 413 at once, and the body's deadline starts. Nothing is read, so a
// client without a token costs no more than its head.
func (l httpLimits) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if err := bodylimit.Guard(w, req, l.MaxBodyBytes, l.BodyTimeout); err != nil {
			refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("mcpkit: %v (%s); send a smaller request", err, l.maxFrom))
			return
		}
		next.ServeHTTP(w, req)
	})
}

// read reads a request's body before the SDK's handler does, once the token has been
// checked, so that a body too slow or too large is answered with what happened (408,
// 413) instead of the SDK's "failed to read body".
func (l httpLimits) read(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Body == nil || req.Body == http.NoBody {
			next.ServeHTTP(w, req)
			return
		}
		body := req.Body
		if l.MaxBodyBytes >= 0 {
			body = http.MaxBytesReader(w, body, l.MaxBodyBytes)
		}
		b, err := io.ReadAll(body)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("mcpkit: the request body is over the limit of %d bytes (%s); send a smaller request", l.MaxBodyBytes, l.maxFrom))
			return
		case bodylimit.Slow(err):
			refuse(w, http.StatusRequestTimeout, fmt.Sprintf("mcpkit: the request body did not arrive within %v (mcpkit.HTTPLimits.BodyTimeout); send the whole body at once", l.BodyTimeout))
			return
		case err != nil:
			refuse(w, http.StatusBadRequest, fmt.Sprintf("mcpkit: reading the request body: %v", err))
			return
		}
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		next.ServeHTTP(w, req)
	})
}

// refuse answers a request whose body is left unread (or half read) with a JSON-RPC
// error of id null, as JSON-RPC answers a request it could not read, and closes the
// connection: what follows is the rest of that body.
func refuse(w http.ResponseWriter, status int, msg string) {
	bodylimit.Refuse(w)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": jsonrpc.CodeInvalidRequest, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

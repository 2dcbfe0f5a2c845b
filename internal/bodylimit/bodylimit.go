// Package bodylimit bounds the body of a request an http.Handler serves: its announced
// size, refused before a byte of it is read, and the time it takes to arrive. The panel
// and MCP over HTTP (mcpkit) share it; each answers in its own format.
//
//	if err := bodylimit.Guard(w, req, maxBytes, timeout); err != nil {
//		… // 413: err is a *TooLargeError; answer with Connection: close (Refuse)
//	}
//	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxBytes))
//	if bodylimit.Slow(err) { … } // 408, Connection: close
//
// # The deadline
//
// The deadline is the connection's read deadline, set from the handler
// (http.ResponseController.SetReadDeadline) when it starts, so that it holds in any
// http.Server the handler is mounted in, whatever its ReadTimeout. It is set only on a
// request that has a body. On HTTP/1.1 net/http reads the connection in the background
// once the body is consumed (at once for a request without one), to notice a client
// that hangs up, and a read deadline that passed there would cancel the request's
// context, ending a long response (an event stream); net/http lifts the deadline when it
// starts that read, so neither this deadline nor a server's ReadTimeout cuts a response.
// A deadline set on a request without a body would land on that read: hence none.
//
// A ResponseWriter that cannot set deadlines (a test recorder, a wrapper without
// Unwrap) leaves the connection's deadlines to the server.
package bodylimit

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"
)

// A TooLargeError is a request whose Content-Length is over the limit; nothing of its
// body has been read.
type TooLargeError struct {
	Announced, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the request announces a body of %d bytes (Content-Length), over the limit of %d bytes", e.Announced, e.Max)
}

// Guard prepares req for a handler that reads at most maxBytes of its body (negative: no
// bound) within timeout of now (zero or negative: the connection's deadline is left
// alone). It returns a *TooLargeError, having read nothing, when req announces more than
// maxBytes; the caller answers 413 through Refuse.
func Guard(w http.ResponseWriter, req *http.Request, maxBytes int64, timeout time.Duration) error {
	if timeout > 0 && hasBody(req) {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout))
	}
	if maxBytes >= 0 && req.ContentLength > maxBytes {
		return &TooLargeError{Announced: req.ContentLength, Max: maxBytes}
	}
	return nil
}

// Refuse prepares w for an answer that leaves the body unread (413, 408): the connection
// closes after the answer, instead of net/http reading the rest of the body first or
// taking what follows for the next request.
func Refuse(w http.ResponseWriter) { w.Header().Set("Connection", "close") }

// Slow reports whether err, from reading a guarded body, is its deadline passing.
func Slow(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

func hasBody(req *http.Request) bool {
	return req.Body != nil && req.Body != http.NoBody && req.ContentLength != 0
}

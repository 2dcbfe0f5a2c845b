// Package rawclient is a misbehaving HTTP/1.1 client for tests, written on a raw
// net.Conn: a request whose body lies about its length, a body that trickles in a byte
// at a time. It reports what the server answered and when it closed the connection.
package rawclient

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// A Result is what the server did with one request.
type Result struct {
	Status int // 0: no answer
	Header http.Header
	Body   string
	// Closed reports that the server closed the connection (after its answer, if any).
	Closed bool
	// After is the time from the end of the request's head to the close, or to the
	// answer when the connection stayed open.
	After time.Duration
}

// Head is a request's line and headers ("POST /x HTTP/1.1\r\nHost: h\r\n…"), without the
// blank line that ends them.
type Head string

// Announce sends head, then sent (the part of the body the client sends; head announces
// its length), and waits up to wait for the answer and the close.
func Announce(addr string, head Head, sent []byte, wait time.Duration) (Result, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return Result{}, err
	}
	defer conn.Close()
	deadline := time.Now().Add(wait)
	_ = conn.SetDeadline(deadline)
	if _, err := io.WriteString(conn, string(head)+"\r\n"); err != nil {
		return Result{}, err
	}
	start := time.Now()
	_, _ = conn.Write(sent) // the server may answer and close before it takes them
	return read(conn, start)
}

// Trickle sends head, then unit every gap (one byte of a Content-Length body, or a
// one-byte chunk "1\r\nx\r\n" of a chunked one), until the server closes the connection
// or wait passes, and reports what it answered.
func Trickle(addr string, head Head, unit []byte, gap, wait time.Duration) (Result, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return Result{}, err
	}
	defer conn.Close()
	deadline := time.Now().Add(wait)
	_ = conn.SetDeadline(deadline)
	if _, err := io.WriteString(conn, string(head)+"\r\n"); err != nil {
		return Result{}, err
	}
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(gap)
		defer tick.Stop()
		for {
			if _, err := conn.Write(unit); err != nil {
				return // the server closed, or the deadline passed
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	res, err := read(conn, start)
	close(stop)
	_ = conn.SetWriteDeadline(time.Now()) // a write blocked on a full buffer returns
	wg.Wait()
	return res, err
}

// read reads the answer, then waits for the close.
func read(conn net.Conn, start time.Time) (Result, error) {
	var res Result
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		res.After = time.Since(start)
		res.Closed = closed(err)
		if res.Closed {
			return res, nil // closed without an answer
		}
		return res, fmt.Errorf("no answer and no close after %v: %w", res.After.Round(time.Millisecond), err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	res.Status, res.Header, res.Body, res.After = resp.StatusCode, resp.Header, string(b), time.Since(start)
	if err != nil {
		return res, fmt.Errorf("reading the answer's body: %w", err)
	}
	// Anything after the answer is either the close or a stray byte.
	var one [1]byte
	_, err = br.Read(one[:])
	if closed(err) {
		res.Closed, res.After = true, time.Since(start)
	}
	return res, nil
}

// closed reports whether err from reading the connection is the server closing it.
func closed(err error) bool {
	var ne net.Error
	if err == nil || (errors.As(err, &ne) && ne.Timeout()) {
		return false
	}
	return true // io.EOF, io.ErrUnexpectedEOF, a reset
}

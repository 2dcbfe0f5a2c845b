package sandbox

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/dop251/goja"
)

// Sentinel errors. Errors that carry more detail wrap one of these (or a standard error), so
// callers test with errors.Is.
var (
	// ErrClosed reports work submitted to a realm whose mount was closed (unmounted) or to a
	// closed Sandbox.
	ErrClosed = errors.New("sandbox: mount is closed")

	// ErrNotPlugin reports mount code that did not return a plugin.
	ErrNotPlugin = errors.New("sandbox: mount code did not return a plugin")
)

// A TimeoutError reports an entry into JavaScript that exceeded its time bound (or whose
// context ended) and was interrupted. errors.Is(err, context.DeadlineExceeded) holds for a
// time bound; a cancelled context unwraps to its cause.
type TimeoutError struct {
	Mount string        // "dyn-3"
	What  string        // "listener of \"tools/change\"", "evaluation", …
	Limit time.Duration // the bound that was exceeded; 0 when a context ended
	Bound string        // "CallTimeout", "VMTimeout", "MountTimeout" or "context"
	cause error
}

func (e *TimeoutError) Error() string {
	if e.Limit > 0 {
		return fmt.Sprintf("%s: %s ran longer than %s (%v) and was interrupted: %v", e.Mount, e.What, e.Bound, e.Limit, e.cause)
	}
	return fmt.Sprintf("%s: %s was interrupted: %v", e.Mount, e.What, e.cause)
}

func (e *TimeoutError) Unwrap() error { return e.cause }

func newTimeout(mount, what, bound string, limit time.Duration) *TimeoutError {
	return &TimeoutError{Mount: mount, What: what, Bound: bound, Limit: limit, cause: context.DeadlineExceeded}
}

// A JSError is an exception thrown (or a rejection) by JavaScript code, described in Go.
// When the thrown value is an Error the realm made from a Go error (a failed ctx.provide or
// ctx.tools.register, a rejected Go call, an argument of the wrong type) and JavaScript
// let it through, the JSError unwraps to that Go error, so errors.Is(err, kit.ErrDuplicate)
// and the like hold. JavaScript never sees the Go value.
type JSError struct {
	Mount   string // "dyn-3"
	Message string // String(error): "TypeError: x is not a function"
	Stack   string // the JS stack, when the value was an Error
	err     error  // the Go error the thrown Error was made from, if any
}

// Unwrap returns the Go error the thrown JS Error was made from, or nil.
func (e *JSError) Unwrap() error { return e.err }

func (e *JSError) Error() string {
	if e.Mount == "" {
		return e.Message
	}
	return e.Mount + ": " + e.Message
}

// goPanic turns a Go panic recovered around JavaScript (a bug in a native function or a
// binding, which goja lets through) into an error for the entry, and logs its stack for
// whoever debugs the binding. Lock held.
func (r *Realm) goPanic(x any) error {
	text := r.panicText(x)
	r.logger.Error("sandbox: Go panic inside a JavaScript entry", "panic", text, "stack", string(debug.Stack()))
	if err, ok := x.(error); ok && gojaErr(err) == nil {
		return fmt.Errorf("%s: internal error (Go panic): %w", r.id, err)
	}
	return fmt.Errorf("%s: internal error (Go panic): %s", r.id, text)
}

// panicText renders a recovered panic value for an error message without running the
// mount's code: a JavaScript value (or an exception holding one) is described, never
// stringified. Lock held.
func (r *Realm) panicText(x any) string {
	switch v := x.(type) {
	case goja.Value:
		msg, _ := r.describe(v)
		return "a thrown JavaScript value: " + msg
	case error:
		if ex, ok := gojaErr(v).(*goja.Exception); ok {
			msg, _ := r.describe(ex.Value())
			return "a JavaScript exception: " + msg
		}
	}
	return panicTextUnlocked(x)
}

// panicTextUnlocked is panicText for a goroutine without the lock: a JavaScript value is
// only named (describing it needs the lock). A String or Error method that panics yields
// a fixed text instead of a second panic.
func panicTextUnlocked(x any) (s string) {
	switch v := x.(type) {
	case goja.Value:
		return "a JavaScript value"
	case error:
		if _, ok := gojaErr(v).(*goja.Exception); ok {
			return "a JavaScript exception"
		}
	}
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("a panic value of type %T whose text cannot be read", x)
		}
	}()
	return truncate(fmt.Sprint(x), maxDescribedMessage)
}

package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/dop251/goja"
)

// A Go panic on the way through an entry — in a native function goja lets it through, in
// an args or conv func, in a settle func of an async Go call, in the host's OnError — never
// leaves the lock held: the entry ends with an error (the host's own handler's panic is
// logged), and the sandbox serves the next call. It runs in a child
// process: a panic escaping the settle goroutine would end the process.
func TestGoPanicReleasesTheLock(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	l, lb := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	// Made with ToValue, not Func: goja passes a Go panic of such a function through.
	set(r, "rawPanic", func(r *Realm) any {
		return func(call goja.FunctionCall) goja.Value { panic("a bug in a binding") }
	})
	set(r, "rawPanicError", func(r *Realm) any {
		return func(call goja.FunctionCall) goja.Value {
			var m map[string]int
			//lint:ignore SA5000 the runtime error is the point
			m["x"] = 1 // a runtime error
			return nil
		}
	})
	set(r, "settlePanic", func(r *Realm) any {
		return r.Func("settlePanic", func(call goja.FunctionCall) goja.Value {
			return r.promise(func(ctx context.Context) (func() goja.Value, error) {
				return func() goja.Value { panic("a bug in a settle func") }, nil
			})
		})
	})
	serves := func() {
		t.Helper()
		var got string
		within(t, 5*time.Second, "the next call", func() { got = runJSON(r, `1 + 1`) })
		if got != "2" {
			t.Fatalf("the sandbox does not serve after the panic: %s", got)
		}
	}

	for _, tc := range []struct{ name, src, want string }{
		{"native function", `rawPanic()`, "internal error (Go panic): a bug in a binding"},
		{"native function, caught in JavaScript", `try { rawPanic() } catch (e) { 'caught' }`, "internal error (Go panic): a bug in a binding"},
		{"runtime error", `rawPanicError()`, "internal error (Go panic): assignment to entry in nil map"},
		{"settle func", `settlePanic().then(() => 'resolved', (e) => 'rejected: ' + e.message)`, `"rejected: dyn-1: internal error (Go panic): a bug in a settle func"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			within(t, 5*time.Second, tc.name, func() { got = runJSON(r, tc.src) })
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %s, want %q", got, tc.want)
			}
			serves()
		})
	}
	if !strings.Contains(lb.String(), "sandbox: Go panic inside a JavaScript entry") || !strings.Contains(lb.String(), "gopanic_test.go") {
		t.Errorf("the Go panics are not logged with their stack:\n%s", tail(lb.String(), 5))
	}

	t.Run("args and conv", func(t *testing.T) {
		fn, _ := goja.AssertFunction(mustRun(t, r, `(x) => x`))
		for _, tc := range []struct {
			name       string
			args       func() []goja.Value
			conv       func(goja.Value) error
			wantSubstr string
		}{
			{"args", func() []goja.Value { panic("args bug") }, nil, "internal error (Go panic): args bug"},
			{"conv", nil, func(goja.Value) error { panic("conv bug") }, "internal error (Go panic): conv bug"},
		} {
			var err error
			within(t, 5*time.Second, tc.name, func() { err = r.Deliver(context.Background(), fn, tc.args, tc.conv) })
			if err == nil || !strings.Contains(err.Error(), tc.wantSubstr) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.wantSubstr)
			}
			serves()
		}
	})

	t.Run("the host's OnError", func(t *testing.T) {
		l.onError = func(string, error) { panic(errors.New("a bug in the host's handler")) }
		defer func() { l.onError = nil }()
		var err error
		within(t, 5*time.Second, "a call whose rejection report panics", func() {
			_, err = run(r, `Promise.reject(new Error('unhandled')); 1`)
		})
		if err != nil {
			t.Errorf("the call failed: %v", err)
		}
		if !strings.Contains(lb.String(), "sandbox: Options.OnError panicked") || !strings.Contains(lb.String(), "a bug in the host's handler") {
			t.Errorf("the handler's panic is not logged:\n%s", tail(lb.String(), 3))
		}
		serves()
	})
}

// mustRun evaluates src in r and returns the value.
func mustRun(t *testing.T, r *Realm, src string) goja.Value {
	t.Helper()
	v, err := run(r, src)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

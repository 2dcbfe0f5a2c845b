package sandbox

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// logBuffer collects log records for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (lb *logBuffer) Write(p []byte) (int, error) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.b.Write(p)
}

func (lb *logBuffer) String() string {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.b.String()
}

// newTestLoop returns a loop with short time bounds and a captured log; Close is deferred.
func newTestSandbox(t testing.TB, opts *Options) (*Sandbox, *logBuffer) {
	t.Helper()
	lb := &logBuffer{}
	if opts == nil {
		opts = &Options{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.MultiWriter(lb), &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.Timeouts == nil {
		opts.Timeouts = &Timeouts{VM: 300 * time.Millisecond, Mount: 300 * time.Millisecond, Call: 300 * time.Millisecond}
	}
	l := New(opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := l.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return l, lb
}

// testRealm creates a bare realm (no mount) on l.
func testRealm(t testing.TB, l *Sandbox, id string) *Realm {
	t.Helper()
	r, err := l.openRealm(id, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// run evaluates src in r as one entry bounded by CallTimeout and returns the result
// (converted to JSON when it is JSON data) or the error.
func run(r *Realm, src string) (goja.Value, error) {
	var out goja.Value
	err := r.call(context.Background(), bound{What: "test code", Name: "CallTimeout", Limit: r.engine.timeouts.Call},
		func() (goja.Value, error) { return r.rt.RunString(src) },
		func(v goja.Value) error { out = v; return nil })
	return out, err
}

// runJSON is run with the result rendered as JSON (or the error's message).
func runJSON(r *Realm, src string) string {
	var out string
	err := r.call(context.Background(), bound{What: "test code", Name: "CallTimeout", Limit: r.engine.timeouts.Call},
		func() (goja.Value, error) { return r.rt.RunString(src) },
		func(v goja.Value) error {
			if v == nil || goja.IsUndefined(v) {
				out = "undefined"
				return nil
			}
			b, err := r.toJSON(v, "result")
			out = string(b)
			return err
		})
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}

// set defines a global in r under the lock.
func set(r *Realm, name string, v func(r *Realm) any) {
	r.engine.lock.Lock()
	defer r.engine.lock.Unlock()
	_ = r.rt.Set(name, v(r))
}

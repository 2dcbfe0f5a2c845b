package sandboxhost

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
)

// newTestHost returns a sandbox host with short bounds and a kit runtime, both closed at
// the end of the test.
func newTestHost(t *testing.T) (*Host, *kit.Context) {
	t.Helper()
	root := kit.New(nil)
	h := New(&sandbox.Options{Timeouts: &sandbox.Timeouts{VM: 300 * time.Millisecond, Mount: 300 * time.Millisecond, Call: 300 * time.Millisecond}}, 256)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := root.Fiber().Dispose(ctx); err != nil {
			t.Errorf("dispose: %v", err)
		}
		if err := h.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return h, root
}

func startHost(t *testing.T, h *Host, root *kit.Context, code string) (*Run, error) {
	t.Helper()
	return h.Start(context.Background(), root, Spec{PluginID: "clock-1", Code: code})
}

func TestSandboxHostInvoke(t *testing.T) {
	h, root := newTestHost(t)
	run, err := startHost(t, h, root, `
harness.handle('add', (args) => ({ sum: args.a + args.b }));
harness.handle('slow', async (args) => { await null; return [args, 'done'] });
harness.handle('bad', () => undefined);
harness.handle('throws', () => { throw new Error('boom') });
harness.handle('spin', () => { for (;;) {} });
return { name: 'clock', apply(ctx) { harness.handle('late', () => null) } }`)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop(context.Background())
	if got, want := run.Handlers(context.Background()), []string{"add", "bad", "late", "slow", "spin", "throws"}; !slices.Equal(got, want) {
		t.Fatalf("Handlers = %v, want %v", got, want)
	}
	tests := []struct {
		method, args, want, wantErr string
	}{
		{"add", `{"a":1,"b":2}`, `{"sum":3}`, ""},
		{"slow", `7`, `[7,"done"]`, ""},
		{"late", `null`, `null`, ""},
		{"bad", `null`, "", `harness.handle("bad") must return lossless JSON data (a plain object, an array, a string, a finite number, a boolean) or ` + "`return null`"},
		{"throws", `null`, "", "Error: boom"},
		{"spin", `null`, "", "CallTimeout"},
		{"nope", `null`, "", ErrMethodNotFound.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			out, err := run.Invoke(context.Background(), tt.method, json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Invoke error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(out) != tt.want {
				t.Fatalf("Invoke = %s, %v; want %s", out, err, tt.want)
			}
		})
	}
}

func TestSandboxHostHandleErrors(t *testing.T) {
	h, root := newTestHost(t)
	tests := []struct{ name, code, want string }{
		{"duplicate", `harness.handle('a', () => 1); harness.handle('a', () => 2); return () => {}`,
			`harness.handle("a"): this host half already registered that method; register each method once`},
		{"blank method", `harness.handle('', () => 1); return () => {}`, "method must be a non-empty string"},
		{"not a function", `harness.handle('a', 5); return () => {}`, `harness.handle("a", fn): fn must be a function`},
		{"defineTool without a name", `harness.defineTool({}); return () => {}`, "harness.defineTool: parameter tool.name: expected a non-empty string, got undefined"},
		{"no return", `harness.handle('a', () => 1)`, "did you forget `return`?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := startHost(t, h, root, tt.code)
			if err == nil {
				run.Stop(context.Background())
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

// A disposer from harness.handle removes its own entry only, and a stopped run's handlers
// are gone with its realm.
func TestSandboxHostDisposerAndStop(t *testing.T) {
	h, root := newTestHost(t)
	run, err := startHost(t, h, root, `const off = harness.handle('a', () => 1); off(); harness.handle('a', () => 2); off(); return () => {}`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := run.Invoke(context.Background(), "a", nil)
	if err != nil || string(out) != "2" {
		t.Fatalf("Invoke = %s, %v; want 2 (a stale disposer must not remove the second handler)", out, err)
	}
	if err := run.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Invoke(context.Background(), "a", nil); !errors.Is(err, sandbox.ErrClosed) {
		t.Fatalf("Invoke after Stop = %v, want ErrClosed", err)
	}
}

func TestSandboxHostCheck(t *testing.T) {
	h, _ := newTestHost(t)
	tests := []struct{ half, code, want string }{
		{"code.host", "return () => {}", ""},
		{"code.host", "return (ctx => {", "code.host: mount code failed to parse at line 1"},
		{"code.host", "const harness = 1; return () => {}", "code.host declares the name `harness`"},
		{"code.client", "const harness = 1; return () => {}", ""},
		{"code.client", "return {", "code.client: mount code failed to parse"},
	}
	for _, tt := range tests {
		err := h.Check(tt.half, tt.code)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Check(%s, %q) = %v, want %q", tt.half, tt.code, err, tt.want)
		}
	}
}

// The harness is native and frozen: a half cannot replace it or its handle, and what it
// registers lands in the run's table even after it tried.
func TestSandboxHostHarnessFrozen(t *testing.T) {
	h, root := newTestHost(t)
	run, err := startHost(t, h, root, `harness.handle = () => {}; globalThis.harness = null; harness = null;
if (delete globalThis.harness || !Object.isFrozen(harness)) throw new Error('harness is not frozen');
harness.handle('a', () => 'kept'); return () => {}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Handlers(context.Background()); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("Handlers = %v, want [a]", got)
	}
	if out, err := run.Invoke(context.Background(), "a", nil); err != nil || string(out) != `"kept"` {
		t.Fatalf("Invoke = %s, %v; want \"kept\"", out, err)
	}
}

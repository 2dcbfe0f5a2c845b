package sandbox

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
)

// TestTimeBounds runs every way mount code can hog the sandbox and checks that each ends with
// a deadline (or stack overflow) error, in bounded time, and that the host still serves.
func TestTimeBounds(t *testing.T) {
	const bound = 150 * time.Millisecond
	tests := []struct {
		name string
		code string // mount code
		// trigger runs after a successful mount and returns the error to check.
		trigger  func(h *host) error
		want     string // substring of the error
		overflow bool
	}{
		{name: "sync loop in the body", code: `for (;;) {}`,
			want: "dyn-1: evaluation of the mount code ran longer than VMTimeout (150ms)"},
		{name: "loop after an await in the body", code: `await 0; for (;;) {}`,
			want: "dyn-1: evaluation of the mount code ran longer than VMTimeout (150ms)"},
		{name: "body never settles", code: `await new Promise(() => {})`,
			want: "dyn-1: evaluation of the mount code (its promise did not settle) ran longer than MountTimeout (150ms)"},
		{name: "body waits on Go past the bound", code: `return { inject: ['timer'], async apply(ctx) { await ctx.sleep(10000) } }`,
			want: "dyn-1: apply (its promise did not settle) ran longer than MountTimeout (150ms)"},
		{name: "loop in apply", code: `return { apply(ctx) { for (;;) {} } }`,
			want: "dyn-1: apply ran longer than MountTimeout (150ms)"},
		{name: "loop in apply after an await", code: `return { async apply(ctx) { await null; while (true) {} } }`,
			want: "dyn-1: apply ran longer than MountTimeout (150ms)"},
		{name: "deep recursion in the body", code: `function f() { return f() + 1 }; f()`,
			want: "dyn-1: evaluation of the mount code: stack overflow: more than 2000 nested calls (unbounded recursion?)", overflow: true},
		{name: "loop in a listener",
			code: `return { apply(ctx) { ctx.on('test/ask', () => { for (;;) {} }) } }`,
			trigger: func(h *host) error {
				return testAsk.Emit(context.Background(), h.root, askEvent{})
			},
			want: "dyn-1: a listener ran longer than CallTimeout (150ms)"},
		{name: "loop in a listener after an await",
			code: `return { apply(ctx) { ctx.on('test/ask', async () => { await 0; for (;;) {} }) } }`,
			trigger: func(h *host) error {
				return testAsk.Emit(context.Background(), h.root, askEvent{})
			},
			want: "dyn-1: a listener ran longer than CallTimeout (150ms)"},
		{name: "loop in an emit listener",
			code: `return { apply(ctx) { ctx.on('bench/tick', () => { for (;;) {} }) } }`,
			trigger: func(h *host) error {
				benchTick.Emit(h.root, tickEvent{})
				if !strings.Contains(h.log.String(), "ran longer than CallTimeout") {
					return errors.New("not logged: " + h.log.String())
				}
				return context.DeadlineExceeded
			},
			want: "deadline"},
		{name: "loop in a tool body",
			code: `return { apply(ctx) { ctx.tools.register({ name: 'spin', description: 'd', execute() { for (;;) {} } }) } }`,
			trigger: func(h *host) error {
				_, err := h.call("spin", `{}`)
				return err
			},
			want: `dyn-1: tool "spin" ran longer than CallTimeout (150ms)`},
		{name: "deep recursion in a tool body",
			code: `return { apply(ctx) { ctx.tools.register({ name: 'rec', description: 'd', execute() { const f = (n) => f(n + 1) + 1; return f(0) } }) } }`,
			trigger: func(h *host) error {
				_, err := h.call("rec", `{}`)
				return err
			},
			want: `dyn-1: tool "rec": stack overflow: more than 2000 nested calls`, overflow: true},
		{name: "loop in a timer callback",
			code: `return { inject: ['timer'], apply(ctx) { ctx.setTimeout(() => { for (;;) {} }, 1) } }`,
			trigger: func(h *host) error {
				deadline := time.Now().Add(3 * time.Second)
				for !strings.Contains(h.log.String(), "timer callback failed") {
					if time.Now().After(deadline) {
						return errors.New("not reported: " + h.log.String())
					}
					time.Sleep(5 * time.Millisecond)
				}
				if !strings.Contains(h.log.String(), "a timer callback ran longer than CallTimeout (150ms)") {
					return errors.New("wrong report: " + h.log.String())
				}
				return context.DeadlineExceeded
			},
			want: "deadline"},
		{name: "loop in a cross-mount call",
			code: `return { apply(ctx) { ctx.provide('spinner', { spin() { for (;;) {} } }) } }`,
			trigger: func(h *host) error {
				m, f, err := h.mount(`return { inject: ['spinner'], apply(ctx) {
					ctx.tools.register({ name: 'use', description: 'd', execute() {
						try { ctx.spinner.spin() } catch (e) { return e.message }
					} })
				} }`)
				if err != nil {
					return err
				}
				defer h.unmount(m, f)
				out, err := h.call("use", `{}`)
				if err != nil {
					return err
				}
				if !strings.Contains(out, "dyn-1: a cross-mount call ran longer than CallTimeout (150ms)") {
					return errors.New("unexpected result: " + out)
				}
				return context.DeadlineExceeded
			},
			want: "deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, &Timeouts{VM: bound, Mount: bound, Call: bound})
			start := time.Now()
			_, f, err := h.mount(tt.code)
			if tt.trigger != nil {
				if err != nil {
					t.Fatalf("mount: %v", err)
				}
				start = time.Now()
				err = tt.trigger(h)
			}
			elapsed := time.Since(start)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) && tt.want != "deadline" {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
			if tt.overflow {
				var so *goja.StackOverflowError
				if !errors.As(err, &so) {
					t.Errorf("errors.As(*goja.StackOverflowError) = false for %v", err)
				}
			} else if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("errors.Is(DeadlineExceeded) = false for %v", err)
			}
			if elapsed > 2*time.Second {
				t.Errorf("took %v", elapsed)
			}
			if tt.trigger == nil && f != nil {
				t.Errorf("a failed mount left a fiber behind: %v", f.State())
			}
			if n := len(h.root.Fibers()); tt.trigger == nil && n != 4 { // root, tools, timer, greeter-provider
				t.Errorf("%d fibers after a failed mount: %v", n, h.root.Fibers())
			}
			h.serving()
		})
	}
}

// TestFailedApplyLeavesNothing checks that a mount whose apply fails after registering
// things is rolled back completely.
func TestFailedApplyLeavesNothing(t *testing.T) {
	h := newHost(t, nil)
	tests := []struct{ code, want string }{
		{`return { apply(ctx) { ctx.tools.register({ name: 'half', description: 'd', execute: () => 1 }); ctx.provide('halfsvc', 1); throw new Error('apply exploded') } }`,
			`plugin "<anonymous>": dyn-1: Error: apply exploded`},
		{`return { async apply(ctx) { ctx.tools.register({ name: 'half', description: 'd', execute: () => 1 }); await 0; throw new RangeError('late') } }`,
			`plugin "<anonymous>": dyn-2: RangeError: late`},
		{`return { apply(ctx) { ctx.provide('greeter', {}) } }`,
			`ctx.provide: "greeter" is a Go service declared in the catalog; a JavaScript value cannot stand in for it — pick another name`},
		{`return { apply(ctx) { ctx.tools.register({ name: 'probe_1', description: 'd', execute: () => 1 }); ctx.tools.register({ name: 'probe_1', description: 'd', execute: () => 1 }) } }`,
			`ctx.tools.register("probe_1"): kit: tool "probe_1" is already registered by plugin "<anonymous>"`},
	}
	for _, tt := range tests {
		_, _, err := h.mount(tt.code)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("got  %v\nwant %s", err, tt.want)
		}
		tools, _ := kit.ToolsService.Get(h.root)
		if _, ok := tools.Get("half"); ok {
			t.Error("the tool of a failed mount is still registered")
		}
		if _, ok := h.root.Get("halfsvc"); ok {
			t.Error("the service of a failed mount is still provided")
		}
	}
	h.serving()
}

// TestHeapPerMount keeps mounts of plugin-body.js alive and checks the live heap each
// costs against the 48 KiB budget (BenchmarkHeapPerMount measures it at 1,000).
func TestHeapPerMount(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const n = 200
	root, sb := benchHost(t)
	body := pluginBody()
	before := benchfix.LiveHeap()
	ms := make([]*Mount, 0, n)
	for i := range n {
		m, _ := benchMount(t, root, sb, body, i)
		ms = append(ms, m)
	}
	perMount := float64(benchfix.LiveHeap()-before) / n / 1024
	runtime.KeepAlive(ms)
	t.Logf("%.1f KiB per live mount", perMount)
	if perMount > 48 {
		t.Errorf("%.1f KiB per live mount, budget 48 KiB", perMount)
	}
}

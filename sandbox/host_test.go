package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
)

// A host is a kit runtime with a greeter Go service and a loop using testFacade, the way
// the toolset wires them.
type host struct {
	t       testing.TB
	root    *kit.Context
	sb      *Sandbox
	log     *logBuffer
	greeter *greeter
	next    int
	mounts  []*Mount
}

func newHost(t testing.TB, timeouts *Timeouts) *host {
	t.Helper()
	lb := &logBuffer{}
	logger := slog.New(slog.NewTextHandler(io.MultiWriter(lb), &slog.HandlerOptions{Level: slog.LevelDebug}))
	if timeouts == nil {
		timeouts = &Timeouts{VM: 250 * time.Millisecond, Mount: 250 * time.Millisecond, Call: 250 * time.Millisecond}
	}
	h := &host{t: t, log: lb}
	h.root = kit.New(&kit.Options{Logger: logger})
	h.greeter = &greeter{root: h.root}
	h.root.Plugin(&kit.Plugin{Name: "greeter-provider", Apply: func(c *kit.Context) error {
		return greeterService.Provide(c, h.greeter)
	}})
	h.sb = New(&Options{Facade: testFacade, Timeouts: timeouts, Logger: logger})
	t.Cleanup(h.close)
	return h
}

func (h *host) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.root.Fiber().Dispose(ctx); err != nil {
		h.t.Errorf("disposing the root: %v", err)
	}
	for _, m := range h.mounts {
		_ = m.Close(ctx)
	}
	if err := h.sb.Close(ctx); err != nil {
		h.t.Errorf("closing the sandbox: %v", err)
	}
}

// mount evaluates code as the next dyn-N and starts it under the root.
func (h *host) mount(code string) (*Mount, *kit.Fiber, error) {
	h.next++
	id := fmt.Sprintf("dyn-%d", h.next)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := h.sb.Evaluate(ctx, id, code)
	if err != nil {
		return nil, nil, err
	}
	f, err := m.Start(ctx, h.root)
	if err != nil {
		return nil, nil, err
	}
	h.mounts = append(h.mounts, m)
	return m, f, nil
}

func (h *host) mustMount(code string) (*Mount, *kit.Fiber) {
	h.t.Helper()
	m, f, err := h.mount(code)
	if err != nil {
		h.t.Fatalf("mount: %v", err)
	}
	return m, f
}

func (h *host) unmount(m *Mount, f *kit.Fiber) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.Dispose(ctx); err != nil {
		h.t.Errorf("dispose %s: %v", m.ID(), err)
	}
	if err := m.Close(ctx); err != nil {
		h.t.Errorf("close %s: %v", m.ID(), err)
	}
}

// call runs a registered tool.
func (h *host) call(name, args string) (string, error) {
	tools, _ := kit.ToolsService.Get(h.root)
	out, err := tools.Call(context.Background(), name, json.RawMessage(args))
	return string(out), err
}

// eval runs src in m's realm (a test back door) and renders the result as JSON.
func (h *host) eval(m *Mount, src string) string {
	return runJSON(m.realm, src)
}

// serving proves the host still works: a fresh mount registers a tool that answers.
func (h *host) serving() {
	h.t.Helper()
	m, f := h.mustMount(`return { name: 'probe', apply(ctx) {
		ctx.tools.register({ name: 'probe_` + fmt.Sprint(h.next+1) + `', description: 'probe', execute: (a) => ({ ok: true }) })
	} }`)
	if out, err := h.call("probe_"+fmt.Sprint(h.next), `{}`); err != nil || out != `{"ok":true}` {
		h.t.Fatalf("the host no longer serves: %s %v", out, err)
	}
	h.unmount(m, f)
}

var _ = goja.Undefined

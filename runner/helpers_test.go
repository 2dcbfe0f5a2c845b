package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// env is a runner under test with a recorder of its events and messages.
type env struct {
	t    *testing.T
	root *kit.Context
	r    *Runner
	host *SandboxHost // nil with a fake host

	mu     sync.Mutex
	events []string
	reqs   []RequestRunEvent
	msgs   []ModelMessageEvent
}

// newEnv starts a runner; opts.Host nil means a real sandbox host with short bounds.
func newEnv(t *testing.T, opts *Options) *env {
	t.Helper()
	e := &env{t: t, root: kit.New(nil)}
	if opts == nil {
		opts = &Options{}
	}
	if opts.Store == nil && testStore != nil {
		opts.Store = testStore(t)
	}
	if opts.Host == nil {
		e.host = NewSandboxHost(&sandbox.Options{Timeouts: &sandbox.Timeouts{VM: 500 * time.Millisecond, Mount: 500 * time.Millisecond, Call: 500 * time.Millisecond}})
		opts.Host = e.host
	}
	e.record()
	r, err := New(e.root, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.r = r
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := r.Dispose(ctx); err != nil {
			t.Errorf("Dispose: %v", err)
		}
		if err := e.root.Fiber().Dispose(ctx); err != nil {
			t.Errorf("root dispose: %v", err)
		}
		if e.host != nil {
			if err := e.host.Close(ctx); err != nil {
				t.Errorf("host close: %v", err)
			}
		}
	})
	return e
}

// record subscribes to every runner event.
func (e *env) record() {
	add := func(s string) { e.mu.Lock(); e.events = append(e.events, s); e.mu.Unlock() }
	e.root.Plugin(&kit.Plugin{Name: "recorder", Apply: func(c *kit.Context) error {
		_, _ = RequestRun.On(c, func(p RequestRunEvent) {
			e.mu.Lock()
			e.reqs = append(e.reqs, p)
			e.mu.Unlock()
			add(fmt.Sprintf("request-run %s %s/%s approval=%v", p.RequestID, p.PluginID, p.PackageID, p.RequiresApproval))
		})
		_, _ = RequestRunResolved.On(c, func(p RequestRunResolvedEvent) { add(fmt.Sprintf("resolved %s %s", p.RequestID, p.Outcome)) })
		_, _ = DynamicPackage.On(c, func(p DynamicPackageEvent) {
			add(fmt.Sprintf("package %s/%s %s", p.PluginID, p.PackageID, p.PluginRunID))
		})
		_, _ = DynamicRetract.On(c, func(p DynamicRetractEvent) {
			add(fmt.Sprintf("retract %s/%s %s", p.PluginID, p.PackageID, p.PluginRunID))
		})
		_, _ = ModelMessage.On(c, func(m ModelMessageEvent) { e.mu.Lock(); e.msgs = append(e.msgs, m); e.mu.Unlock() })
		return nil
	}})
}

// takeEvents returns and clears the recorded events.
func (e *env) takeEvents() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	ev := e.events
	e.events = nil
	return ev
}

// sawEvent reports whether ev has been recorded (and not yet taken).
func (e *env) sawEvent(ev string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Contains(e.events, ev)
}

// messageCount is how many model messages e heard since the last takeMessages.
func (e *env) messageCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.msgs)
}

func (e *env) lastRequest() RequestRunEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.reqs) == 0 {
		e.t.Fatal("no cordis/request-run event")
	}
	return e.reqs[len(e.reqs)-1]
}

func (e *env) takeMessages() []ModelMessageEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.msgs
	e.msgs = nil
	return m
}

func as(session string) context.Context { return kit.WithSession(context.Background(), session) }

// define defines a Package for session s1 and fails the test on error.
func (e *env) define(ref dynamic.Target, host, client string) dynamic.DefineOutput {
	e.t.Helper()
	in := dynamic.DefineInput{Plugin: ref, Name: "Clock", Purpose: "Shows the time."}
	if host != "" {
		in.Code.Host = ptr(host)
	}
	if client != "" {
		in.Code.Client = ptr(client)
	}
	out, err := e.r.Define(as("s1"), in)
	if err != nil {
		e.t.Fatalf("Define: %v", err)
	}
	return out
}

func newPlugin(prefix string) dynamic.Target { return dynamic.Target{Kind: "new", IDPrefix: prefix} }
func existing(id string) dynamic.Target      { return dynamic.Target{Kind: "existing", PluginID: id} }

func (e *env) plugin(id string) Plugin {
	e.t.Helper()
	p, err := e.r.Store().Plugin(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// fakeHost is a HostStarter double: Start waits on gate (when set) or ctx, and every run's
// handlers are Go funcs.
type fakeHost struct {
	mu      sync.Mutex
	gate    chan struct{}
	entered chan struct{} // receives once per Start that began waiting on gate
	live    int
	fail    error
}

type fakeRun struct {
	h        *fakeHost
	handlers map[string]func(json.RawMessage) (json.RawMessage, error)
	once     sync.Once
}

func (h *fakeHost) Start(ctx context.Context, _ *kit.Context, spec HostSpec) (HostRun, error) {
	h.mu.Lock()
	gate, fail := h.gate, h.fail
	h.mu.Unlock()
	if gate != nil {
		if h.entered != nil {
			h.entered <- struct{}{}
		}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if fail != nil {
		return nil, fail
	}
	h.mu.Lock()
	h.live++
	h.mu.Unlock()
	return &fakeRun{h: h, handlers: map[string]func(json.RawMessage) (json.RawMessage, error){
		"echo": func(a json.RawMessage) (json.RawMessage, error) { return a, nil },
		"fail": func(json.RawMessage) (json.RawMessage, error) { return nil, fmt.Errorf("handler broke") },
	}}, nil
}

func (h *fakeHost) running() int { h.mu.Lock(); defer h.mu.Unlock(); return h.live }

func (f *fakeRun) WaitingFor() []string              { return nil }
func (f *fakeRun) Provides() []string                { return nil }
func (f *fakeRun) Handlers(context.Context) []string { return []string{"echo", "fail"} }
func (f *fakeRun) Stop(context.Context) error {
	f.once.Do(func() { f.h.mu.Lock(); f.h.live--; f.h.mu.Unlock() })
	return nil
}
func (f *fakeRun) Invoke(_ context.Context, m string, a json.RawMessage) (json.RawMessage, error) {
	fn := f.handlers[m]
	if fn == nil {
		return nil, ErrMethodNotFound
	}
	return fn(a)
}

// inspectPlugin is cordis_inspect_self {pluginId} for ctx's session: the Plugin's summary
// with its Packages.
func (e *env) inspectPlugin(ctx context.Context, id string) (dynamic.PluginSummary, error) {
	out, err := e.r.InspectSelf(ctx, dynamic.InspectSelfInput{PluginID: id})
	if err != nil {
		return dynamic.PluginSummary{}, err
	}
	return *out.Plugin, nil
}

// listPlugins is cordis_inspect_self {} for ctx's session: its Plugins' summaries.
func listPlugins(r *Runner, ctx context.Context) ([]dynamic.PluginSummary, error) {
	out, err := r.InspectSelf(ctx, dynamic.InspectSelfInput{})
	if err != nil {
		return nil, err
	}
	return *out.Plugins, nil
}

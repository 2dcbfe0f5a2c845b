package toolset_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// A reported is one call of Options.OnError.
type reported struct {
	mount string
	err   error
}

// recorder collects the calls of Options.OnError.
type recorder struct {
	mu  sync.Mutex
	got []reported
}

func (r *recorder) onError(mount string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, reported{mount, err})
}

func (r *recorder) calls() []reported {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]reported(nil), r.got...)
}

// one checks that OnError was called exactly once, for mount, and returns the error.
func (r *recorder) one(t *testing.T, mount string) error {
	t.Helper()
	got := r.calls()
	if len(got) != 1 {
		t.Fatalf("OnError was called %d times, want once: %v", len(got), got)
	}
	if got[0].mount != mount {
		t.Fatalf("OnError was called for mount %q, want %q (%v)", got[0].mount, mount, got[0].err)
	}
	return got[0].err
}

// is checks err's text.
func is(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Errorf("OnError got %v,\nwant %s", err, want)
	}
}

// onErrorHarness is a harness whose toolset reports to a recorder. Its cleanup disposes
// the toolset without checking the error: the tests that make cleanup fail check it.
func onErrorHarness(t *testing.T, opts *toolset.Options) (*harness, *recorder) {
	t.Helper()
	rec := &recorder{}
	opts.OnError = rec.onError
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	root := kit.New(&kit.Options{Logger: opts.Logger})
	ts, err := toolset.New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := kit.ToolsService.Get(root)
	t.Cleanup(func() {
		_ = ts.Dispose(context.Background())
		_ = root.Fiber().Dispose(context.Background())
	})
	return &harness{t: t, root: root, ts: ts, tools: tools}, rec
}

const greeterProvider = `return { name: 'greeter-provider', apply(ctx) { ctx.provide('greeter', { greet: (n) => 'hi ' + n }) } }`

// TestOnErrorLateApply: a mount pending on a service whose apply throws once the service
// appears: cordis_mount succeeded, so OnError is the only one told.
func TestOnErrorLateApply(t *testing.T) {
	h, rec := onErrorHarness(t, &toolset.Options{})
	c := h.mount(`return { name: 'late', inject: ['greeter'], apply(ctx) { throw new Error('late apply failed') } }`)
	if c.State != "pending" {
		t.Fatalf("consumer: %+v, want pending", c)
	}
	if got := rec.calls(); len(got) != 0 {
		t.Fatalf("OnError called before the apply ran: %v", got)
	}
	h.mount(greeterProvider)
	is(t, rec.one(t, c.ID), c.ID+": Error: late apply failed")
	contains(t, h.inspect("temporary", ""), "late [failed: plugin \"late\": "+c.ID+": Error: late apply failed]")
}

// TestOnErrorReload: a mount whose apply succeeds, then throws on the reload after its
// service returns.
func TestOnErrorReload(t *testing.T) {
	h, rec := onErrorHarness(t, &toolset.Options{})
	p := h.mount(greeterProvider)
	c := h.mount(`let applies = 0; return { name: 'reloads', inject: ['greeter'], apply(ctx) { if (++applies === 2) throw new Error('reload failed') } }`)
	if c.State != "active" {
		t.Fatalf("consumer: %+v, want active", c)
	}
	h.mustCall("cordis_unmount", map[string]string{"id": p.ID})
	if got := rec.calls(); len(got) != 0 {
		t.Fatalf("OnError called before the reload: %v", got)
	}
	h.mount(greeterProvider)
	is(t, rec.one(t, c.ID), c.ID+": Error: reload failed")
}

// TestOnErrorListener: an emit-mode listener that throws; the emit does not wait for it.
func TestOnErrorListener(t *testing.T) {
	h, rec := onErrorHarness(t, &toolset.Options{})
	l := h.mount(`return (ctx) => { ctx.on('tools/change', (tool) => { throw new Error('listener failed on ' + tool) }) }`)
	h.mount(`return (ctx) => { ctx.tools.register({ name: 'noop_tool', description: 'd', parameters: { type: 'object' }, execute: () => 1 }) }`)
	if !waitFor(5*time.Second, func() bool { return len(rec.calls()) > 0 }) {
		t.Fatal("OnError was not called for the failing listener")
	}
	is(t, rec.one(t, l.ID), `a listener of "tools/change" threw: `+l.ID+": Error: listener failed on noop_tool")
}

// TestOnErrorGroupUnmount: when the toolset is disposed, a mount's failing disposer is
// reported with its id (and returned by Dispose).
func TestOnErrorGroupUnmount(t *testing.T) {
	h, rec := onErrorHarness(t, &toolset.Options{})
	m := h.mount(`return (ctx) => { ctx.effect(() => { throw new Error('disposer failed') }) }`)
	h.mount(`return (ctx) => { ctx.effect(() => {}) }`)
	err := h.ts.Dispose(context.Background())
	got := rec.one(t, m.ID)
	is(t, got, "disposing effect: "+m.ID+": Error: disposer failed")
	if !errors.Is(err, got) {
		t.Errorf("Dispose returned %v, want it to carry the error OnError got", err)
	}
}

// TestOnErrorAbandonedTeardown: the tools registry goes away, so the toolset unloads on
// its own; a mount's disposer that spins is abandoned at the teardown bound.
func TestOnErrorAbandonedTeardown(t *testing.T) {
	const call = 100 * time.Millisecond
	h, rec := onErrorHarness(t, &toolset.Options{
		Timeouts: &sandbox.Timeouts{VM: call, Mount: 2 * call, Call: call},
		Limits:   &sandbox.Limits{Teardown: call / 2}, // spent before the disposer's own CallTimeout
	})
	m := h.mount(`return { name: 'spins', inject: ['timer'], apply(ctx) { ctx.effect(() => { for (;;) {} }) } }`)
	// The "tools" plugin provides the registry; disposing it unloads the toolset.
	var tools *kit.Fiber
	for _, f := range h.root.Fiber().Children() {
		if f.Name() == "tools" {
			tools = f
		}
	}
	if tools == nil {
		t.Fatal("no tools plugin under the root")
	}
	if err := tools.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	var ab *sandbox.AbandonedError
	if got := rec.one(t, m.ID); !errors.As(got, &ab) || *ab != (sandbox.AbandonedError{Mount: m.ID, Disposers: 1, Limit: call / 2}) {
		t.Errorf("OnError got %v, want the AbandonedError of %s's one disposer", got, m.ID)
	}
}

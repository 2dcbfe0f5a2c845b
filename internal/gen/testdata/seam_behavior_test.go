// This file is overlaid into testdata/fixture/rt/api by TestGolden, next to the generated
// catalog and façade: a mount implements the summarizer seam in JavaScript and Go code
// uses it through rt.Summary, with the generated implementation in between.

package api_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/testdata/fixture/rt"
	"github.com/cordiskit/cordiskit/testdata/fixture/rt/api"
)

// summarizerPlugin implements rt.Summarizer in JavaScript. The text passed to summarize
// picks a misbehaviour, so one mount serves every case.
const summarizerPlugin = `
	const made = new Map();
	const subs = new Set();
	let calls = 0, badStats = false;
	class Impl {
		constructor() { this.prefix = 'js:' } // methods are called with this bound to the object
		async summarize(text, max) {
			switch (text) {
			case 'throw': throw new RangeError('cannot summarize that');
			case 'never': return new Promise(() => {});
			case 'spin': for (;;) {}
			case 'wrong': return 42;
			case 'huge': return 'x'.repeat(9 << 20);
			case 'bad-stats': badStats = true; return 'ok';
			}
			await null;
			const s = this.prefix + text.split(' ').slice(0, max).join(' ');
			made.set(text, s);
			calls++;
			for (const fn of subs) fn(text, max);
			return s;
		}
		stats() { return badStats ? { calls: 'many' } : { calls, level: 'running' } }
		cached(key) { return made.get(key) }
		subscribe(fn) { subs.add(fn); return () => subs.delete(fn) }
		reset() { made.clear(); calls = 0 }
	}
	return { name: 'summarizer-js', apply(ctx) { ctx.provide('summarizer', new Impl()) } }`

type seamHost struct {
	t    *testing.T
	root *kit.Context
	loop *sandbox.Sandbox
	mu   sync.Mutex
	errs []string // what Options.OnError received
}

func newSeamHost(t *testing.T) *seamHost {
	h := &seamHost{t: t}
	h.root = kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h.loop = sandbox.New(&sandbox.Options{
		Facade:   api.Facade,
		Timeouts: &sandbox.Timeouts{Call: 300 * time.Millisecond},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnError: func(mount string, err error) {
			h.mu.Lock()
			h.errs = append(h.errs, mount+" "+err.Error())
			h.mu.Unlock()
		},
	})
	t.Cleanup(func() {
		ctx := context.Background()
		h.root.Fiber().Dispose(ctx)
		h.loop.Close(ctx)
	})
	return h
}

func (h *seamHost) mount(id, code string) (*sandbox.Mount, *kit.Fiber, error) {
	ctx := context.Background()
	m, err := h.loop.Evaluate(ctx, id, code)
	if err != nil {
		return nil, nil, err
	}
	f, err := m.Start(ctx, h.root)
	return m, f, err
}

func (h *seamHost) lastError() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.errs) == 0 {
		return ""
	}
	return h.errs[len(h.errs)-1]
}

func TestSeamImplementedInJavaScript(t *testing.T) {
	h := newSeamHost(t)
	ctx := context.Background()

	// A Go plugin that injects the seam waits for the mount, then loads.
	loaded := make(chan rt.Summarizer, 1)
	consumer := h.root.Plugin(&kit.Plugin{Name: "consumer", Inject: []string{"summarizer"}, Apply: func(c *kit.Context) error {
		s, ok := rt.Summary.Get(c)
		if !ok {
			return errors.New("summarizer missing in apply")
		}
		loaded <- s
		return nil
	}})
	if consumer.State() != kit.StatePending {
		t.Fatalf("consumer is %v before any provider, want pending", consumer.State())
	}
	m, f, err := h.mount("dyn-1", summarizerPlugin)
	if err != nil {
		t.Fatal(err)
	}
	var s rt.Summarizer
	select {
	case s = <-loaded:
	case <-time.After(5 * time.Second):
		t.Fatal("the Go consumer did not load when the mount provided the seam")
	}

	// A context-taking method: a promise awaited, arguments and this passed.
	got, err := s.Summarize(ctx, "one two three", 2)
	if err != nil || got != "js:one two" {
		t.Errorf("Summarize = %q, %v; want \"js:one two\"", got, err)
	}
	// Sync methods: a struct (an enum field included), a found pair.
	if st := s.Stats(); st != (rt.SummaryStats{Calls: 1, Level: rt.StatusRunning}) {
		t.Errorf("Stats = %+v", st)
	}
	if v, ok := s.Cached("one two three"); !ok || v != "js:one two" {
		t.Errorf("Cached(made) = %q, %v", v, ok)
	}
	if v, ok := s.Cached("nope"); ok || v != "" {
		t.Errorf("Cached(missing) = %q, %v; want not found", v, ok)
	}
	// A callback into Go and the disposer JavaScript returns.
	var seen []string
	stop := s.Subscribe(func(key string, words int) { seen = append(seen, key) })
	if _, err := s.Summarize(ctx, "a b", 5); err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := s.Summarize(ctx, "c d", 5); err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, ",") != "a b" {
		t.Errorf("the Go callback saw %q, want only \"a b\" (the disposer stops it)", seen)
	}
	if err := s.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Calls != 0 {
		t.Errorf("Stats after Reset = %+v", st)
	}

	// A wrong type returned: the error names the path.
	if _, err := s.Summarize(ctx, "wrong", 1); err == nil || !strings.Contains(err.Error(), "summarizer.summarize(…): expected a string, got number") {
		t.Errorf("Summarize(wrong) = %v, want the path and the types", err)
	}
	if _, err := s.Summarize(ctx, "huge", 1); err == nil || !strings.Contains(err.Error(), "summarizer.summarize(…): expected a string of at most 8388608 bytes") {
		t.Errorf("Summarize(huge) = %v, want the MaxBytes bound", err)
	}
	if _, err := s.Summarize(ctx, "bad-stats", 1); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st != (rt.SummaryStats{}) {
		t.Errorf("Stats with a wrong result = %+v, want the zero value", st)
	}
	if e := h.lastError(); !strings.Contains(e, "dyn-1") || !strings.Contains(e, "summarizer.stats(…).calls: expected an integer, got string") {
		t.Errorf("the failed Stats reported %q, want the mount and the path", e)
	}
	// A throwing implementation.
	if _, err := s.Summarize(ctx, "throw", 1); err == nil || !strings.Contains(err.Error(), "RangeError: cannot summarize that") ||
		!strings.Contains(err.Error(), "summarizer.summarize, implemented in JavaScript: dyn-1: RangeError") {
		t.Errorf("Summarize(throw) = %v", err)
	}
	// Never settling, and spinning: bounded by CallTimeout.
	for _, text := range []string{"never", "spin"} {
		start := time.Now()
		_, err := s.Summarize(ctx, text, 1)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "CallTimeout") {
			t.Errorf("Summarize(%s) = %v, want the CallTimeout bound", text, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Summarize(%s) took %v", text, d)
		}
	}
	// The caller's context cancels the call.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	start := time.Now()
	_, err = s.Summarize(cctx, "never", 1)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 250*time.Millisecond {
		t.Errorf("Summarize with a 20ms context = %v after %v, want the context's deadline", err, time.Since(start))
	}

	// After unmount: the service goes (the consumer parks), a held value fails clearly.
	if err := f.Dispose(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if consumer.State() != kit.StatePending {
		t.Errorf("consumer is %v after the provider went, want pending", consumer.State())
	}
	if _, ok := rt.Summary.Get(h.root); ok {
		t.Error("the seam is still provided after unmount")
	}
	_, err = s.Summarize(ctx, "late", 1)
	if !errors.Is(err, sandbox.ErrClosed) || !strings.Contains(err.Error(), `summarizer.summarize: the JavaScript implementation of service "summarizer" is gone`) {
		t.Errorf("Summarize after unmount = %v", err)
	}
	if st := s.Stats(); st != (rt.SummaryStats{}) {
		t.Errorf("Stats after unmount = %+v", st)
	}
	stop() // a disposer of a gone implementation does nothing
	s.Subscribe(nil)()
}

func TestSeamRefusedAtProvide(t *testing.T) {
	h := newSeamHost(t)
	for _, tc := range []struct{ code, want string }{
		{`return { apply(ctx) { ctx.provide('summarizer', { summarize: async () => '', stats: 1, cached() {}, subscribe() {} }) } }`,
			`ctx.provide("summarizer"): the value provided as "summarizer" must implement the Go interface rt.Summarizer — ` +
				"an object with every method below as a function (missing or not a function: stats, reset):\n" +
				"    async summarize(text: string, max: number): Promise<string>\n" +
				"    stats(): SummaryStats   ← missing\n"},
		{`return { apply(ctx) { ctx.provide('summarizer', 'not an object') } }`, "(got string)"},
		{`return { apply(ctx) { ctx.provide('fs', { readFile() {}, stat() {}, watch() {}, head() {} }) } }`,
			`ctx.provide("fs"): "fs" cannot be implemented in JavaScript: its Go interface rt.FileSystem has methods the façade leaves out (Close)`},
		{`return { apply(ctx) { ctx.provide('sessions', {}) } }`, `"sessions" is a Go service declared in the catalog; a JavaScript value cannot stand in for it`},
	} {
		_, _, err := h.mount("dyn-1", tc.code)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("mount error:\n%v\nwant it to contain:\n%s", err, tc.want)
		}
		if _, ok := h.root.Get("summarizer"); ok {
			t.Fatal("a refused seam was provided")
		}
	}
}

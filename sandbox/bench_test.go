package sandbox

// Benchmarks for the four performance targets, each beside its floor (bare goja, the
// shape of ../shared/anchors-bench/go/host.go). The plugin body and the floor's host are
// the benchmark command's (package internal/benchfix):
//
//	go test -run '^$' -bench . -benchmem ./sandbox
//
//	BenchmarkMount*     mount of plugin-body.js (evaluate + façade + apply), then unmount
//	BenchmarkGoToJS*    a Go event delivered to JS listeners, payload converted
//	BenchmarkJSToGo*    a JS call into a Go service method through a binding (run inside one JS loop;
//	                    subtract BenchmarkJSToGoEmptyLoop for the call alone)
//	BenchmarkHeap*      live heap per mount with 1,000 mounts alive (KiB/mount)

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
)

// pluginBody is plugin-body.js listening to the test catalog's bench/tick: the kit's
// ctx.on takes only catalogued events.
func pluginBody() string { return benchfix.OnEvent(benchfix.PluginBody, "bench/tick") }

func benchHost(tb testing.TB) (*kit.Context, *Sandbox) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	root := kit.New(&kit.Options{Logger: logger})
	sb := New(&Options{Facade: testFacade, Logger: logger, Timeouts: &Timeouts{Call: time.Minute}})
	tb.Cleanup(func() {
		ctx := context.Background()
		_ = root.Fiber().Dispose(ctx)
		_ = sb.Close(ctx)
	})
	return root, sb
}

func benchMount(tb testing.TB, root *kit.Context, sb *Sandbox, body string, i int) (*Mount, *kit.Fiber) {
	ctx := context.Background()
	m, err := sb.Evaluate(ctx, fmt.Sprintf("dyn-%d", i), benchfix.WithID(body, i))
	if err != nil {
		tb.Fatal(err)
	}
	f, err := m.Start(ctx, root)
	if err != nil {
		tb.Fatal(err)
	}
	return m, f
}

func reportP50(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	if len(d) > 0 {
		b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1e3, "p50-µs")
		b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds())/1e3, "p99-µs")
	}
}

// BenchmarkMount: Evaluate + Start (façade + apply) of plugin-body.js, then Dispose + Close.
// Target: p50 ≤ 150 µs.
func BenchmarkMount(b *testing.B) {
	root, sb := benchHost(b)
	body := pluginBody()
	ctx := context.Background()
	var d []time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		m, f := benchMount(b, root, sb, body, i)
		d = append(d, time.Since(t0))
		_ = f.Dispose(ctx)
		_ = m.Close(ctx)
	}
	reportP50(b, d)
}

// BenchmarkMountFloorGoja is the same mount in bare goja ([benchfix.BareHost]).
func BenchmarkMountFloorGoja(b *testing.B) {
	body := pluginBody()
	var d []time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h := benchfix.NewBareHost()
		t0 := time.Now()
		if _, err := h.Mount(benchfix.BareSource(benchfix.WithID(body, i))); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	reportP50(b, d)
}

// BenchmarkGoToJS emits bench/tick (payload {ID, Text} → two positional arguments) to k
// listeners, each in its own mount. Target: ≤ 1.5 µs per listener and ≤ 2.5× the floor.
func BenchmarkGoToJS(b *testing.B) {
	for _, k := range []int{1, 10} {
		b.Run(fmt.Sprintf("listeners=%d", k), func(b *testing.B) {
			root, sb := benchHost(b)
			body := pluginBody()
			var ms []*Mount
			for i := range k {
				m, _ := benchMount(b, root, sb, body, i)
				ms = append(ms, m)
			}
			ev := tickEvent{ID: 1, Text: "hello"}
			b.ReportAllocs()
			for b.Loop() {
				benchTick.Emit(root, ev)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(k), "ns/listener")
			if got := runJSON(ms[0].realm, `1`); got != "1" {
				b.Fatal(got)
			}
		})
	}
}

// BenchmarkGoToJSFloorGoja calls k stored goja Callables (one runtime each) with the same
// two converted arguments: the bare cost of a Go → JS call.
func BenchmarkGoToJSFloorGoja(b *testing.B) {
	for _, k := range []int{1, 10} {
		b.Run(fmt.Sprintf("listeners=%d", k), func(b *testing.B) {
			type l struct {
				rt *goja.Runtime
				fn goja.Callable
			}
			var ls []l
			for range k {
				rt := goja.New()
				v, _ := rt.RunString(`let counter = 0; (id, text) => { counter++ }`)
				fn, _ := goja.AssertFunction(v)
				ls = append(ls, l{rt, fn})
			}
			ev := tickEvent{ID: 1, Text: "hello"}
			b.ReportAllocs()
			for b.Loop() {
				for _, x := range ls {
					if _, err := x.fn(goja.Undefined(), x.rt.ToValue(ev.ID), x.rt.ToValue(ev.Text)); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(k), "ns/listener")
		})
	}
}

// jsLoop runs src — (n) => count — with n = b.N inside one entry of r.
func jsLoop(b *testing.B, r *Realm, src string) {
	v, err := run(r, src)
	if err != nil {
		b.Fatal(err)
	}
	fn, _ := goja.AssertFunction(v)
	b.ReportAllocs()
	b.ResetTimer()
	err = r.call(context.Background(), bound{What: "bench", Name: "bench", Limit: time.Hour}, func() (goja.Value, error) {
		return fn(goja.Undefined(), r.rt.ToValue(b.N))
	}, func(v goja.Value) error {
		if v.ToInteger() != int64(b.N) {
			return fmt.Errorf("count %v", v)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkJSToGo calls ctx.greeter.hello('x') — a sync Go method through its binding
// (argument check, Sync, result conversion) — in a JS loop. Target: ≤ 430 ns net of the loop.
func BenchmarkJSToGo(b *testing.B) {
	root, sb := benchHost(b)
	root.Plugin(&kit.Plugin{Name: "greeter-provider", Apply: func(c *kit.Context) error {
		return greeterService.Provide(c, &greeter{root: root})
	}})
	m, err := sb.Evaluate(context.Background(), "dyn-1", `return { inject: ['greeter'], apply(ctx) { globalThis.ctx = ctx } }`)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := m.Start(context.Background(), root); err != nil {
		b.Fatal(err)
	}
	jsLoop(b, m.realm, `(n) => { const g = ctx.greeter; let s = 0; for (let i = 0; i < n; i++) { if (g.hello('x') !== undefined) s++ } return s }`)
}

// BenchmarkJSToGoFloorGoja is the same loop calling a bare native func(goja.FunctionCall).
func BenchmarkJSToGoFloorGoja(b *testing.B) {
	l, _ := newTestSandbox(b, &Options{Timeouts: &Timeouts{Call: time.Hour}})
	r := testRealm(b, l, "dyn-1")
	set(r, "g", func(r *Realm) any {
		o := r.rt.NewObject()
		_ = o.Set("hello", func(call goja.FunctionCall) goja.Value {
			return r.rt.ToValue("hello, " + call.Argument(0).String())
		})
		return o
	})
	jsLoop(b, r, `(n) => { let s = 0; for (let i = 0; i < n; i++) { if (g.hello('x') !== undefined) s++ } return s }`)
}

// BenchmarkJSToGoEmptyLoop is the loop alone, to subtract from the two above.
func BenchmarkJSToGoEmptyLoop(b *testing.B) {
	l, _ := newTestSandbox(b, &Options{Timeouts: &Timeouts{Call: time.Hour}})
	r := testRealm(b, l, "dyn-1")
	jsLoop(b, r, `(n) => { let s = 0; for (let i = 0; i < n; i++) { if (i !== -1) s++ } return s }`)
}

// BenchmarkHeapPerMount keeps 1,000 mounts of plugin-body.js alive and reports the live
// heap per mount. Target: ≤ 48 KiB.
func BenchmarkHeapPerMount(b *testing.B) {
	const n = 1000
	body := pluginBody()
	for b.Loop() {
		root, sb := benchHost(b)
		before := benchfix.LiveHeap()
		ms := make([]*Mount, 0, n)
		for i := range n {
			m, _ := benchMount(b, root, sb, body, i)
			ms = append(ms, m)
		}
		after := benchfix.LiveHeap()
		b.ReportMetric(float64(after-before)/n/1024, "KiB/mount")
		benchTick.Emit(root, tickEvent{ID: 1, Text: "x"}) // all alive and listening
		runtime.KeepAlive(ms)
	}
}

// BenchmarkHeapPerMountFloorGoja is the same with bare goja runtimes.
func BenchmarkHeapPerMountFloorGoja(b *testing.B) {
	const n = 1000
	body := pluginBody()
	for b.Loop() {
		h := benchfix.NewBareHost()
		before := benchfix.LiveHeap()
		pls := make([]*benchfix.BarePlugin, 0, n)
		for i := range n {
			pl, err := h.Mount(benchfix.BareSource(benchfix.WithID(body, i)))
			if err != nil {
				b.Fatal(err)
			}
			pls = append(pls, pl)
		}
		after := benchfix.LiveHeap()
		b.ReportMetric(float64(after-before)/n/1024, "KiB/mount")
		runtime.KeepAlive(pls)
		runtime.KeepAlive(h)
	}
}

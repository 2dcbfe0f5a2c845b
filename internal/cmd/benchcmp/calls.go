package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"slices"

	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
)

// goToJS records the cost of a Go event reaching one more JavaScript listener: Tick.Emit
// with 1 and with k listeners, each in its own mount, and the marginal cost per listener.
// The cordiskit side converts the payload (TickEvent → id, text) and enters each realm
// under its lock and time bound; the floor calls each stored goja.Callable with a
// prebuilt object argument.
func (b *bench) goToJS(ctx context.Context, floorFirst bool) (err error) {
	h, err := newKitHost()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, h.close()) }()
	bh := benchfix.NewBareHost()
	ev := TickEvent{ID: 1, Text: "hello"}
	kitEmit := func(iters int) error {
		for range iters {
			Tick.Emit(h.root, ev)
		}
		return h.failures()
	}
	bareEmit := func(iters int) error {
		for range iters {
			if err := bh.Emit(Tick.Name(), ev.ID, ev.Text); err != nil {
				return err
			}
		}
		return nil
	}
	// listen brings each side to n listeners, one mount each.
	listen := func(n int) error {
		for bh.Listeners(Tick.Name()) < n {
			if _, err := h.mountID(ctx, b.next()); err != nil {
				return err
			}
			if _, err := bh.Mount(benchfix.BareSource(b.next())); err != nil {
				return err
			}
		}
		return nil
	}
	var one, many [2]float64 // kit, floor
	for _, step := range []struct {
		n   int
		dst *[2]float64
	}{{1, &one}, {b.cfg.listeners, &many}} {
		if err := listen(step.n); err != nil {
			return err
		}
		runtime.GC()
		if step.dst[0], step.dst[1], err = b.sides(floorFirst, kitEmit, bareEmit); err != nil {
			return err
		}
	}
	const floor = "a bare goja call of each stored listener with a prebuilt object argument, one runtime per listener"
	k := float64(b.cfg.listeners)
	b.res.fig("gotojs-1", "Go → JS emit, 1 listener, ns", floor, target{}).add(one[0], one[1])
	b.res.fig("gotojs-marginal", fmt.Sprintf("Go → JS, per extra listener (1→%d), ns", b.cfg.listeners), floor,
		target{maxValue: 1500, maxRatio: 2.5}).add((many[0]-one[0])/(k-1), (many[1]-one[1])/(k-1))
	return nil
}

// sides measures the figure's side and the floor's side interleaved, the floor's batch
// first when floorFirst, and returns their ns per operation.
func (b *bench) sides(floorFirst bool, side, floor func(int) error) (sideNs, floorNs float64, err error) {
	if floorFirst {
		ns, err := b.cfg.batch.interleave(floor, side)
		if err != nil {
			return 0, 0, err
		}
		return ns[1], ns[0], nil
	}
	ns, err := b.cfg.batch.interleave(side, floor)
	if err != nil {
		return 0, 0, err
	}
	return ns[0], ns[1], nil
}

// goTick is the Go → Go figure's event.
var goTick = kit.NewEvent[TickEvent]("bench/go-tick")

// The Go → Go floor: a call through an interface held in a package-level slice, so the
// compiler cannot devirtualise it.
type tickHandler interface{ Handle(TickEvent) }

type tickCounter struct{ n int }

func (c *tickCounter) Handle(p TickEvent) { c.n += p.ID }

var floorHandlers []tickHandler

// goToGo records a typed Go emit to k Go listeners (each its own plugin) per listener, and
// its allocations per emit, beside an interface method call per handler.
func (b *bench) goToGo(ctx context.Context, floorFirst bool) error {
	k := b.cfg.listeners
	ev := TickEvent{ID: 1, Text: "hello"}
	root := kit.New(&kit.Options{Logger: slog.New(slog.DiscardHandler)})
	defer root.Fiber().Dispose(ctx)
	total := 0
	for i := range k {
		f := root.Plugin(&kit.Plugin{Name: fmt.Sprint("listener-", i), Apply: func(c *kit.Context) error {
			_, err := goTick.On(c, func(p TickEvent) { total += p.ID })
			return err
		}})
		if err := f.Err(); err != nil {
			return err
		}
	}
	emit := func(iters int) error {
		for range iters {
			goTick.Emit(root, ev)
		}
		return nil
	}
	c := &tickCounter{}
	floorHandlers = floorHandlers[:0]
	for range k {
		floorHandlers = append(floorHandlers, c)
	}
	call := func(iters int) error {
		for range iters {
			for _, h := range floorHandlers {
				h.Handle(ev)
			}
		}
		return nil
	}
	kitNs, floorNs, err := b.sides(floorFirst, emit, call)
	if err != nil {
		return err
	}
	if total == 0 || c.n == 0 {
		return errors.New("the listeners never ran")
	}
	b.res.fig("gotogo", fmt.Sprintf("Go → Go typed emit per listener (%d listeners), ns", k),
		"an interface method call through a package-level slice", target{maxValue: 20}).add(kitNs/float64(k), floorNs/float64(k))
	b.res.fig("gotogo-allocs", "Go → Go typed emit, allocs per emit", "", target{zero: true}).add(allocsPerRun(10000, emit), allocsPerRun(10000, call))
	return nil
}

// allocsPerRun returns the mallocs per call of fn(1), averaged over n calls.
func allocsPerRun(n int, fn func(iters int) error) float64 {
	_ = fn(1)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_ = fn(n)
	runtime.ReadMemStats(&m1)
	return math.Floor(float64(m1.Mallocs-m0.Mallocs) / float64(n))
}

// callsBody is the cordiskit side of the JS → Go figure: a mount that injects the bench
// services and registers one tool per loop — a call through the generated binding of the
// kit's tools service (tools.owner), a call through the contract-written binding of Echo
// (bench.hello), and the same loop empty. A batch is one tool call, so the registry's and
// the realm's fixed costs are paid once per batch of about 40 ms. Both sides coerce n to
// an integer (JSON hands the tool a float), so the loops themselves cost the same.
const callsBody = `return {
  name: 'bench-calls',
  inject: ['bench', 'bench-tools', 'bench-tools-by-hand'],
  apply(ctx) {
    const g = ctx.bench
    const t = ctx['bench-tools']
    const h = ctx['bench-tools-by-hand']
    const parameters = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }
    ctx.tools.register({ name: 'bench_generated', description: 'JS → Go loop, generated binding', parameters,
      execute: ({ n }) => { n = n | 0; let s = 0; for (let i = 0; i < n; i++) { if (t.owner('cordis_mount') !== undefined) s++ } return { count: s } } })
    ctx.tools.register({ name: 'bench_by_hand', description: 'JS → Go loop, the same method bound by hand', parameters,
      execute: ({ n }) => { n = n | 0; let s = 0; for (let i = 0; i < n; i++) { if (h.owner('cordis_mount') !== undefined) s++ } return { count: s } } })
    ctx.tools.register({ name: 'bench_contract', description: 'JS → Go loop, contract-written binding', parameters,
      execute: ({ n }) => { n = n | 0; let s = 0; for (let i = 0; i < n; i++) { if (g.hello('x') !== undefined) s++ } return { count: s } } })
    ctx.tools.register({ name: 'bench_empty', description: 'empty loop', parameters,
      execute: ({ n }) => { n = n | 0; let s = 0; for (let i = 0; i < n; i++) { if (i !== -1) s++ } return { count: s } } })
  },
}`

// The floor's loops: the same code, where t and g are plain objects whose methods are
// hand-written native functions calling the same Go methods.
const (
	bareGeneratedLoop = `(() => { const t = globalThis.t; return (n) => { n = n | 0; let s = 0; for (let i = 0; i < n; i++) { if (t.owner('cordis_mount') !== undefined) s++ } return s } })()`
	bareContractLoop  = `(() => { const g = globalThis.g; return (n) => { n = n | 0; let s = 0; for (let i = 0; i < n; i++) { if (g.hello('x') !== undefined) s++ } return s } })()`
	bareEmptyLoop     = `(n) => { n = n | 0; let s = 0; for (let i = 0; i < n; i++) { if (i !== -1) s++ } return s }`
)

// jsToGo records a JavaScript call of a Go service method through its binding (argument
// check, lock released around the Go call, result conversion) against a hand-written
// native goja function calling the same method, both net of the loop around them. The
// six loops (three per side) run interleaved batch by batch.
func (b *bench) jsToGo(ctx context.Context, floorFirst bool) (err error) {
	h, err := newKitHost()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, h.close()) }()
	if _, err := h.mountID(ctx, callsBody); err != nil {
		return err
	}
	kitLoop := func(tool string) func(int) error {
		return func(iters int) error {
			out, err := h.tools.Call(ctx, tool, json.RawMessage(fmt.Sprintf(`{"n":%d}`, iters)))
			if err != nil {
				return err
			}
			var res struct{ Count int }
			if err := json.Unmarshal(out, &res); err != nil || res.Count != iters {
				return fmt.Errorf("%s: got %s for n=%d (%v)", tool, out, iters, err)
			}
			return nil
		}
	}
	rt, err := bareCallsRuntime(h.tools)
	if err != nil {
		return err
	}
	bareLoop := func(src string) (func(int) error, error) {
		v, err := rt.RunString(src)
		if err != nil {
			return nil, err
		}
		fn, _ := goja.AssertFunction(v)
		return func(iters int) error {
			v, err := fn(goja.Undefined(), rt.ToValue(iters))
			if err != nil {
				return err
			}
			if v.ToInteger() != int64(iters) {
				return fmt.Errorf("bare loop: count %v for n=%d", v, iters)
			}
			return nil
		}, nil
	}
	// Pairs of a kit loop and its floor; the by-hand binding's floor is the bare loop of
	// the generated one again (a second measurement of it, so the pairs stay pairs).
	pairs := [][2]string{{"bench_generated", bareGeneratedLoop}, {"bench_contract", bareContractLoop}, {"bench_empty", bareEmptyLoop}, {"bench_by_hand", bareGeneratedLoop}}
	var series []func(int) error // kit, floor; kit, floor; …
	for _, pair := range pairs {
		floor, err := bareLoop(pair[1])
		if err != nil {
			return err
		}
		series = append(series, kitLoop(pair[0]), floor)
	}
	swap := func(xs []func(int) error) { // floor first: each pair's two sides swapped
		for i := 0; i+1 < len(xs); i += 2 {
			xs[i], xs[i+1] = xs[i+1], xs[i]
		}
	}
	order := slices.Clone(series)
	if floorFirst {
		swap(order)
	}
	ns, err := b.cfg.batch.interleave(order...)
	if err != nil {
		return err
	}
	if floorFirst {
		for i := 0; i+1 < len(ns); i += 2 {
			ns[i], ns[i+1] = ns[i+1], ns[i]
		}
	}
	kg, bg, kc, bc, ke, be, kh := ns[0], ns[1], ns[2], ns[3], ns[4], ns[5], ns[6]
	const floor = "a hand-written native goja function calling the same Go method, in the same JS loop"
	b.res.fig("jstogo-raw", "JS → Go loop iteration with a generated-binding call, ns", floor, target{}).add(kg, bg)
	b.res.fig("jstogo-empty", "JS empty loop iteration (subtracted), ns", "the same loop in a bare goja runtime", target{}).add(ke, be)
	b.res.fig("jstogo-net", "JS → Go call, generated binding (tools.owner), net of the loop, ns", floor, target{maxRatio: 1.2}).add(kg-ke, bg-be)
	b.res.fig("jstogo-contract", "JS → Go call, contract-written binding (bench.hello), net of the loop, ns", floor, target{}).add(kc-ke, bc-be)
	b.res.fig("jstogo-by-hand", "JS → Go call, generated binding (tools.owner) against the same method bound by hand following the contract, net of the loop, ns",
		"tools.owner bound by hand as the binding contract prescribes (Realm.Func, bind.String, Realm.Unlocked), in the same runtime", target{}).add(kg-ke, kh-ke)
	return nil
}

// bareCallsRuntime is the floor's runtime: globals t and g whose owner and hello are
// hand-written native functions over the same Go values.
func bareCallsRuntime(tools *kit.Tools) (*goja.Runtime, error) {
	rt := goja.New()
	t := rt.NewObject()
	err := t.Set("owner", func(call goja.FunctionCall) goja.Value {
		owner, ok := tools.Owner(call.Argument(0).String())
		if !ok {
			return goja.Undefined()
		}
		return rt.ToValue(owner)
	})
	svc := &Echo{}
	g := rt.NewObject()
	err = errors.Join(err, g.Set("hello", func(call goja.FunctionCall) goja.Value {
		return rt.ToValue(svc.Hello(call.Argument(0).String()))
	}))
	return rt, errors.Join(err, rt.Set("t", t), rt.Set("g", g))
}

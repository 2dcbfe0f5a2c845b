package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/cordiskit/cordiskit/internal/benchfix"
)

// scaleConfig is a scale sweep: the counts at which each scenario is measured. The last
// count is the headline (10,000 live mounts, 1,000 listeners on one event); the smaller
// ones show how time and memory grow.
type scaleConfig struct {
	mounts    []int
	listeners []int
	reps      int // each point is the median of reps runs, each in a fresh runtime
}

var (
	fullScale = scaleConfig{mounts: []int{1250, 2500, 5000, 10000}, listeners: []int{125, 250, 500, 1000}, reps: 3}
	tinyScale = scaleConfig{mounts: []int{5, 10}, listeners: []int{5, 10}, reps: 1}
)

// A scalePoint is one scenario at one count.
type scalePoint struct {
	n       int
	mount   time.Duration // mounting all n (or the one mount registering n listeners)
	emit    time.Duration // one Tick.Emit reaching all n listeners, median of 5
	unmount time.Duration // unmounting all
	heap    float64       // live heap growth with everything mounted, KiB
}

// probeBody is mounted after the others: a listener registered last proves that one emit
// walked every listener before it, and its tool reports the count.
const probeBody = `let hits = 0
return { name: 'probe', apply(ctx) {
  ctx.on('bench/tick', () => { hits++ })
  ctx.tools.register({ name: 'bench_probe', description: 'ticks seen', execute: () => ({ hits }) })
} }`

// scaleMounts mounts n copies of body through cordis_mount, emits one event to all of
// them, and unmounts them all.
func scaleMounts(ctx context.Context, body string, n int) (p scalePoint, err error) {
	h, err := newKitHost()
	if err != nil {
		return p, err
	}
	defer func() { err = errors.Join(err, h.close()) }()
	p.n = n
	ins := make([]json.RawMessage, n)
	for i := range ins {
		ins[i] = mountInput(strings.ReplaceAll(body, "__ID__", fmt.Sprint(i)))
	}
	ids := make([]string, 0, n)
	before := benchfix.LiveHeap()
	t0 := time.Now()
	for _, in := range ins {
		out, err := h.mount(ctx, in)
		if err != nil {
			return p, err
		}
		id, err := mountedID(out)
		if err != nil {
			return p, err
		}
		ids = append(ids, id)
	}
	p.mount = time.Since(t0)
	p.heap = float64(int64(benchfix.LiveHeap())-int64(before)) / 1024
	probe, err := h.mountID(ctx, probeBody)
	if err != nil {
		return p, err
	}
	if p.emit, err = emitMedian(h, 5); err != nil {
		return p, err
	}
	if err := probeHits(ctx, h, "bench_probe", "hits", 5); err != nil {
		return p, err
	}
	if err := h.unmount(ctx, unmountInput(probe)); err != nil {
		return p, err
	}
	uins := make([]json.RawMessage, n)
	for i, id := range ids {
		uins[i] = unmountInput(id)
	}
	t0 = time.Now()
	for _, in := range uins {
		if err := h.unmount(ctx, in); err != nil {
			return p, err
		}
	}
	p.unmount = time.Since(t0)
	return p, nil
}

// manyListenersBody registers n listeners on one event in one mount, and a tool that
// reports how many calls they received.
func manyListenersBody(n int) string {
	return fmt.Sprintf(`let calls = 0
return { name: 'many-listeners', apply(ctx) {
  for (let i = 0; i < %d; i++) ctx.on('bench/tick', () => { calls++ })
  ctx.tools.register({ name: 'bench_many', description: 'listener calls', execute: () => ({ calls }) })
} }`, n)
}

// scaleListeners mounts one plugin with n listeners on Tick, emits, and unmounts it.
func scaleListeners(ctx context.Context, n int) (p scalePoint, err error) {
	h, err := newKitHost()
	if err != nil {
		return p, err
	}
	defer func() { err = errors.Join(err, h.close()) }()
	p.n = n
	in := mountInput(manyListenersBody(n))
	before := benchfix.LiveHeap()
	t0 := time.Now()
	out, err := h.mount(ctx, in)
	p.mount = time.Since(t0)
	if err != nil {
		return p, err
	}
	id, err := mountedID(out)
	if err != nil {
		return p, err
	}
	p.heap = float64(int64(benchfix.LiveHeap())-int64(before)) / 1024
	if p.emit, err = emitMedian(h, 5); err != nil {
		return p, err
	}
	if err := probeHits(ctx, h, "bench_many", "calls", 5*n); err != nil {
		return p, err
	}
	uin := unmountInput(id)
	t0 = time.Now()
	err = h.unmount(ctx, uin)
	p.unmount = time.Since(t0)
	return p, err
}

// emitMedian emits Tick k times and returns the median duration.
func emitMedian(h *kitHost, k int) (time.Duration, error) {
	ds := make([]time.Duration, k)
	for i := range ds {
		t0 := time.Now()
		Tick.Emit(h.root, TickEvent{ID: i, Text: "hello"})
		ds[i] = time.Since(t0)
	}
	if err := h.failures(); err != nil {
		return 0, err
	}
	return time.Duration(median(us(ds)) * 1e3), nil
}

// probeHits calls a counting tool and checks that it saw want calls.
func probeHits(ctx context.Context, h *kitHost, tool, field string, want int) error {
	out, err := h.tools.Call(ctx, tool, json.RawMessage(`{}`))
	if err != nil {
		return err
	}
	var res map[string]int
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("%s: %s: %w", tool, out, err)
	}
	if res[field] != want {
		return fmt.Errorf("%s: the listeners saw %d calls, want %d", tool, res[field], want)
	}
	return nil
}

// growth is the log–log slope of y against n between the first and last points: 1 means
// linear, 2 quadratic, 0 constant. Reported over the whole sweep and over its last
// doubling, where cache effects of the smaller sizes are gone.
func growth(ps []scalePoint, y func(scalePoint) float64) float64 {
	a, b := ps[0], ps[len(ps)-1]
	ya, yb := y(a), y(b)
	if ya <= 0 || yb <= 0 || a.n == b.n {
		return math.NaN()
	}
	return math.Log(yb/ya) / math.Log(float64(b.n)/float64(a.n))
}

func secs(d time.Duration) float64 { return d.Seconds() }

// runScale measures both scenarios at every count.
func runScale(ctx context.Context, body string, sc scaleConfig) (mounts, listeners []scalePoint, err error) {
	for _, n := range sc.mounts {
		p, err := medianPoint(sc.reps, func() (scalePoint, error) { return scaleMounts(ctx, body, n) })
		if err != nil {
			return nil, nil, fmt.Errorf("%d mounts: %w", n, err)
		}
		mounts = append(mounts, p)
	}
	for _, n := range sc.listeners {
		p, err := medianPoint(sc.reps, func() (scalePoint, error) { return scaleListeners(ctx, n) })
		if err != nil {
			return nil, nil, fmt.Errorf("%d listeners: %w", n, err)
		}
		listeners = append(listeners, p)
	}
	return mounts, listeners, nil
}

// medianPoint runs a point reps times, after a collection each, and takes the median of
// each quantity separately.
func medianPoint(reps int, run func() (scalePoint, error)) (scalePoint, error) {
	var ps []scalePoint
	for range max(reps, 1) {
		runtime.GC()
		p, err := run()
		if err != nil {
			return p, err
		}
		ps = append(ps, p)
	}
	pick := func(f func(scalePoint) float64) float64 {
		xs := make([]float64, len(ps))
		for i, p := range ps {
			xs[i] = f(p)
		}
		return median(xs)
	}
	d := func(f func(scalePoint) time.Duration) time.Duration {
		return time.Duration(pick(func(p scalePoint) float64 { return float64(f(p)) }))
	}
	return scalePoint{
		n:       ps[0].n,
		mount:   d(func(p scalePoint) time.Duration { return p.mount }),
		emit:    d(func(p scalePoint) time.Duration { return p.emit }),
		unmount: d(func(p scalePoint) time.Duration { return p.unmount }),
		heap:    pick(func(p scalePoint) float64 { return p.heap }),
	}, nil
}

// printScale runs the sweeps and writes both tables.
func printScale(ctx context.Context, w io.Writer, body string, sc scaleConfig) error {
	mounts, listeners, err := runScale(ctx, body, sc)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s; median of %d run(s) per point\n\n", environment(), max(sc.reps, 1))
	writeScale(w, "live mounts of plugin-body.js (each with one listener)", "mount", mounts)
	fmt.Fprintln(w)
	writeScale(w, "JS listeners on one event, in one mount", "listener", listeners)
	return nil
}

func writeScale(w io.Writer, title, unit string, ps []scalePoint) {
	fmt.Fprintf(w, "%s:\n\n| count | mount all, ms | µs/%s | one emit to all, µs | ns/%s | unmount all, ms | µs/%s | heap growth, MiB | KiB/%s |\n|---|---|---|---|---|---|---|---|---|\n",
		title, unit, unit, unit, unit)
	for _, p := range ps {
		n := float64(p.n)
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", p.n,
			num(secs(p.mount)*1e3), num(secs(p.mount)*1e6/n),
			num(secs(p.emit)*1e6), num(secs(p.emit)*1e9/n),
			num(secs(p.unmount)*1e3), num(secs(p.unmount)*1e6/n),
			num(p.heap/1024), num(p.heap/n))
	}
	if len(ps) > 1 {
		growthRow(w, ps)
	}
	if len(ps) > 2 {
		growthRow(w, ps[len(ps)-2:])
	}
}

func growthRow(w io.Writer, ps []scalePoint) {
	fmt.Fprintf(w, "| growth exponent %d→%d (1 = linear) | %s | | %s | | %s | | %s | |\n", ps[0].n, ps[len(ps)-1].n,
		num(growth(ps, func(p scalePoint) float64 { return secs(p.mount) })),
		num(growth(ps, func(p scalePoint) float64 { return secs(p.emit) })),
		num(growth(ps, func(p scalePoint) float64 { return secs(p.unmount) })),
		num(growth(ps, func(p scalePoint) float64 { return p.heap })))
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// runnerScaleGroup is the group's -only name. It runs only when named: a round of it
// defines 14,000 Packages, too many for the default table and the tiny test run.
const runnerScaleGroup = "runnerscale"

// runnerScaleSweep is the documented sweep: Plugins per size, each with
// runnerScalePackages Packages.
var runnerScaleSweep = []int{100, 300, 1000}

const (
	runnerScalePackages = 10
	runnerScaleInspects = 30 // whole-session inspects per size; the median counts
)

// A runnerScaleOp is one verb of the sweep: its name in the table and the unit of its
// per-operation cost.
type runnerScaleOp struct {
	key, name, per string
}

var runnerScaleOps = []runnerScaleOp{
	{"define", "cordis_define", "Package"},
	{"run", "cordis_run", "Plugin"},
	{"inspect", "cordis_inspect_self {}", "Plugin listed"},
}

// runnerScale measures the runner's define, run and inspect at each size of the sweep,
// in a runtime per size, through the tool registry as a model calls them: every Plugin
// gets runnerScalePackages Packages (cordis_define, one new then existing), then each
// runs its latest (cordis_run), then cordis_inspect_self {} lists them all (the median
// of runnerScaleInspects). Linear
// means the total work grows as N: the per-operation cost at the largest size stays that
// of the smallest (its floor; ratio ≈ 1), and the growth exponent of the total, fitted on
// log–log over the sweep, is ≈ 1 (per-operation cost ∝ N^(exponent−1)).
func (b *bench) runnerScale(ctx context.Context, floorFirst bool) error {
	if !b.cfg.only[runnerScaleGroup] {
		return nil
	}
	return b.runnerScaleAt(ctx, runnerScaleSweep, runnerScalePackages, floorFirst)
}

// runnerScaleChunks is how many slices each size's work is cut into; the slices of the
// sizes alternate, so load that comes and goes on a shared machine hits every size alike.
const runnerScaleChunks = 10

// runnerScaleAt is runnerScale over the sizes ns (ascending) with pkgs Packages per
// Plugin, after an untimed warm-up at the smallest. Every size has its own runtime and
// runner, all open at once; their work is interleaved chunk by chunk, the smallest (the
// floor) first in the chunks where floorFirst says so.
func (b *bench) runnerScaleAt(ctx context.Context, ns []int, pkgs int, floorFirst bool) (err error) {
	ctx = kit.WithSession(ctx, "bench")
	warm, err := openScaleRuntime(ns[0])
	if err == nil {
		err = errors.Join(warm.sweep(ctx, b, pkgs), warm.close())
	}
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	rts := make([]*scaleRuntime, 0, len(ns))
	defer func() {
		for _, rt := range rts {
			err = errors.Join(err, rt.close())
		}
	}()
	for _, n := range ns {
		rt, err := openScaleRuntime(n)
		if err != nil {
			return err
		}
		rts = append(rts, rt)
	}
	if err := interleave(rts, floorFirst, func(rt *scaleRuntime, chunk int) error { return rt.define(ctx, b, pkgs, chunk) }); err != nil {
		return err
	}
	if err := interleave(rts, floorFirst, func(rt *scaleRuntime, chunk int) error { return rt.run(ctx, chunk) }); err != nil {
		return err
	}
	if err := interleave(rts, floorFirst, func(rt *scaleRuntime, chunk int) error { return rt.inspect(ctx, chunk) }); err != nil {
		return err
	}
	b.scaleFigures(rts, pkgs)
	return nil
}

// interleave calls step for every runtime and chunk, chunk by chunk, in an order that
// alternates between chunks.
func interleave(rts []*scaleRuntime, floorFirst bool, step func(rt *scaleRuntime, chunk int) error) error {
	for chunk := range runnerScaleChunks {
		for j := range rts {
			i := j
			if (chunk%2 == 0) != floorFirst {
				i = len(rts) - 1 - j
			}
			if err := step(rts[i], chunk); err != nil {
				return fmt.Errorf("%d Plugins: %w", rts[i].n, err)
			}
		}
	}
	return nil
}

// scaleFigures records, for each op, the per-operation cost at the largest size beside
// the smallest, and the growth exponent of the total over all sizes.
func (b *bench) scaleFigures(rts []*scaleRuntime, pkgs int) {
	first, last := rts[0], rts[len(rts)-1]
	for _, op := range runnerScaleOps {
		per := func(rt *scaleRuntime) float64 {
			count := rt.n
			if op.key == "define" {
				count *= pkgs
			}
			return float64(rt.total(op.key).Nanoseconds()) / 1e3 / float64(count)
		}
		b.res.fig("runnerscale-"+op.key, fmt.Sprintf("%s at %d Plugins × %d Packages, µs per %s", op.name, last.n, pkgs, op.per),
			fmt.Sprintf("%s at %d Plugins × %d Packages, in the same round", op.name, first.n, pkgs), target{maxRatio: 1.5}).add(per(last), per(first))
		b.res.fig("runnerscale-"+op.key+"-growth", fmt.Sprintf("%s: growth exponent of the total, %d→%d Plugins (1 = linear)", op.name, first.n, last.n),
			"", target{maxValue: 1.2}).add(logLogSlope(rts, func(rt *scaleRuntime) float64 { return rt.total(op.key).Seconds() }), math.NaN())
	}
}

// A scaleRuntime is one size of the sweep: a runtime and runner for n Plugins, the latest
// Package of each, and the time each op took there.
type scaleRuntime struct {
	n        int
	h        *kitHost
	r        *runner.Runner
	latest   []dynamic.DefineOutput // of the Plugins defined so far
	defined  int
	elapsed  map[string]time.Duration
	inspects []float64 // ns per whole-session inspect
}

func openScaleRuntime(n int) (*scaleRuntime, error) {
	h, err := newKitHost()
	if err != nil {
		return nil, err
	}
	r, err := runner.New(h.root, &runner.Options{Facade: benchFacade, Timeouts: &sandbox.Timeouts{Call: time.Minute},
		MaxPluginsPerSession: benchHolds, MaxPackagesPerSession: benchHolds})
	if err != nil {
		return nil, errors.Join(err, h.close())
	}
	return &scaleRuntime{n: n, h: h, r: r, latest: make([]dynamic.DefineOutput, n), elapsed: map[string]time.Duration{}}, nil
}

// close stops the runner and the runtime (untimed).
func (rt *scaleRuntime) close() error {
	return errors.Join(rt.r.Dispose(context.Background()), rt.h.close())
}

// sweep does every chunk of every op in turn: the warm-up.
func (rt *scaleRuntime) sweep(ctx context.Context, b *bench, pkgs int) error {
	return interleave([]*scaleRuntime{rt}, false, func(rt *scaleRuntime, chunk int) error {
		return errors.Join(rt.define(ctx, b, pkgs, chunk), rt.run(ctx, chunk), rt.inspect(ctx, chunk))
	})
}

// total is the time op took at this size: the sum over its chunks, or for inspect the
// median of the whole-session inspects.
func (rt *scaleRuntime) total(op string) time.Duration {
	if op == "inspect" {
		return time.Duration(median(rt.inspects))
	}
	return rt.elapsed[op]
}

// plugins is the chunk's share of the Plugins, as indices.
func (rt *scaleRuntime) plugins(chunk int) (lo, hi int) {
	return rt.n * chunk / runnerScaleChunks, rt.n * (chunk + 1) / runnerScaleChunks
}

// define gives each Plugin of the chunk pkgs Packages: cordis_define of a new Plugin,
// then of the existing one.
func (rt *scaleRuntime) define(ctx context.Context, b *bench, pkgs, chunk int) error {
	lo, hi := rt.plugins(chunk)
	t0 := time.Now()
	for i := lo; i < hi; i++ {
		target := map[string]string{"kind": "new", "idPrefix": "scale"}
		for range pkgs {
			d, err := b.scaleDefine(ctx, rt.h, target)
			if err != nil {
				return err
			}
			target = map[string]string{"kind": "existing", "pluginId": d.PluginID}
			rt.latest[i] = d
		}
		rt.defined = i + 1
	}
	rt.elapsed["define"] += time.Since(t0)
	return nil
}

// run runs the latest Package of each Plugin of the chunk (cordis_run, mode run).
func (rt *scaleRuntime) run(ctx context.Context, chunk int) error {
	lo, hi := rt.plugins(chunk)
	t0 := time.Now()
	for _, d := range rt.latest[lo:hi] {
		out, err := rt.h.tools.Call(ctx, "cordis_run", fmt.Appendf(nil, `{"pluginId":%q,"packageId":%q,"mode":"run"}`, d.PluginID, d.PackageID))
		if err != nil {
			return err
		}
		var res dynamic.RunOutput
		if err := json.Unmarshal(out, &res); err != nil || res.Status != "running" {
			return fmt.Errorf("cordis_run %s: %s (%v)", d.PluginID, out, err)
		}
	}
	rt.elapsed["run"] += time.Since(t0)
	return nil
}

// inspect lists the session's Plugins (cordis_inspect_self {}) runnerScaleInspects /
// runnerScaleChunks times (at least once): every Plugin defined so far.
func (rt *scaleRuntime) inspect(ctx context.Context, chunk int) error {
	for range max(1, runnerScaleInspects/runnerScaleChunks) {
		t0 := time.Now()
		out, err := rt.h.tools.Call(ctx, "cordis_inspect_self", []byte(`{}`))
		if err != nil {
			return err
		}
		elapsed := time.Since(t0)
		var self struct{ Plugins []json.RawMessage }
		if err := json.Unmarshal(out, &self); err != nil || len(self.Plugins) != rt.defined {
			return fmt.Errorf("cordis_inspect_self lists %d Plugins, want %d (%v)", len(self.Plugins), rt.defined, err)
		}
		rt.inspects = append(rt.inspects, float64(elapsed.Nanoseconds()))
	}
	return nil
}

// scaleDefine defines the bench body as a host-only Package of target.
func (b *bench) scaleDefine(ctx context.Context, h *kitHost, target map[string]string) (dynamic.DefineOutput, error) {
	var d dynamic.DefineOutput
	in, err := json.Marshal(map[string]any{"plugin": target, "name": "Scale", "purpose": "The anchors' plugin body.",
		"code": map[string]string{"host": b.next()}})
	if err != nil {
		return d, err
	}
	out, err := h.tools.Call(ctx, "cordis_define", in)
	if err != nil {
		return d, err
	}
	return d, json.Unmarshal(out, &d)
}

// logLogSlope is the least-squares slope of log y against log n over the points: the
// exponent k of y ∝ n^k (1 linear, 2 quadratic, 0 constant).
func logLogSlope(ps []*scaleRuntime, y func(*scaleRuntime) float64) float64 {
	var sx, sy, sxx, sxy float64
	for _, p := range ps {
		if y(p) <= 0 {
			return math.NaN()
		}
		x, v := math.Log(float64(p.n)), math.Log(y(p))
		sx, sy, sxx, sxy = sx+x, sy+v, sxx+x*x, sxy+x*v
	}
	k := float64(len(ps))
	d := k*sxx - sx*sx
	if d == 0 {
		return math.NaN()
	}
	return (k*sxy - sx*sy) / d
}

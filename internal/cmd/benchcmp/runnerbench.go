package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/dop251/goja"
)

// benchHolds raises the runner's per-session caps: the benchmarks hold thousands of
// Plugins and Packages in their one session.
const benchHolds = 1 << 20

// The runner group measures the dynamic-plugin runner's verbs beside the paths they build
// on: cordis_define + cordis_run of a host-only Package beside cordis_mount of the same
// body, Invoke of a host handler beside the sandbox calling the same function, and the
// heap a defined Package keeps beside its source bytes.
func (b *bench) runnerGroup(ctx context.Context, floorFirst bool) (err error) {
	h, err := newKitHost()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, h.close()) }()
	r, err := runner.New(h.root, &runner.Options{Facade: benchFacade, Timeouts: &sandbox.Timeouts{Call: time.Minute},
		MaxPluginsPerSession: benchHolds, MaxPackagesPerSession: benchHolds})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, r.Dispose(context.Background())) }()
	ctx = kit.WithSession(ctx, "bench")
	if err := b.defineRun(ctx, h, floorFirst); err != nil {
		return err
	}
	if err := b.invokeHandler(ctx, r, floorFirst); err != nil {
		return err
	}
	return b.packageHeap(ctx, r)
}

// defineRun times cordis_define + cordis_run of the body as a host-only Package (through
// the tool registry, JSON in and out) beside cordis_mount of the same body, the sides in
// alternating chunks as in the mount group. Undefine and unmount are not timed.
func (b *bench) defineRun(ctx context.Context, h *kitHost, floorFirst bool) error {
	run := &cycler{one: func() (time.Duration, time.Duration, error) { return b.runnerCycle(ctx, h) }}
	mount := &cycler{one: func() (time.Duration, time.Duration, error) { return b.kitCycle(ctx, h) }}
	for _, c := range []*cycler{run, mount} {
		if err := c.run(b.cfg.warm, false); err != nil {
			return err
		}
	}
	for done, chunk := 0, 0; done < b.cfg.mounts; chunk++ {
		n := min(mountChunk, b.cfg.mounts-done)
		first, second := run, mount
		if (chunk%2 == 1) != floorFirst {
			first, second = mount, run
		}
		if err := first.run(n, true); err != nil {
			return err
		}
		if err := second.run(n, true); err != nil {
			return err
		}
		done += n
	}
	// run.unmounts holds runnerCycle's second duration: the span with the client's work
	// between the two calls, shown beside the target's row (kitCycle's client reads the
	// mount's answer untimed).
	const floor = "cordis_mount of the same body in the same runtime"
	b.res.fig("runner-define-run-p50", "cordis_define + cordis_run (host-only) p50, µs", floor,
		target{maxRatio: 1.3}).add(percentile(us(run.mounts), .5), percentile(us(mount.mounts), .5))
	b.res.fig("runner-define-run-client-p50", "the same with the client's reading of define's answer between the calls, p50, µs", floor,
		target{}).add(percentile(us(run.unmounts), .5), percentile(us(mount.mounts), .5))
	return nil
}

// runnerCycle defines a new Plugin with the body as its host half and runs it, then
// undefines it (untimed). It returns the time of the two tool calls, JSON in and out —
// what kitCycle times of cordis_mount, whose answer the client reads outside the timing —
// and the same span with the client's work between the calls (reading define's answer,
// writing run's arguments) included.
func (b *bench) runnerCycle(ctx context.Context, h *kitHost) (calls, withClient time.Duration, err error) {
	def, err := json.Marshal(map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": "bench"},
		"name": "Bench", "purpose": "The anchors' plugin body.", "code": map[string]string{"host": b.next()}})
	if err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	out, err := h.tools.Call(ctx, "cordis_define", def)
	t1 := time.Now()
	if err != nil {
		return 0, 0, err
	}
	var d dynamic.DefineOutput
	if err := json.Unmarshal(out, &d); err != nil {
		return 0, 0, err
	}
	in := fmt.Appendf(nil, `{"pluginId":%q,"packageId":%q,"mode":"run"}`, d.PluginID, d.PackageID)
	t2 := time.Now()
	out, err = h.tools.Call(ctx, "cordis_run", in)
	t3 := time.Now()
	if err != nil {
		return 0, 0, err
	}
	calls, withClient = t1.Sub(t0)+t3.Sub(t2), t3.Sub(t0)
	var res dynamic.RunOutput
	if err := json.Unmarshal(out, &res); err != nil || res.Status != "running" {
		return 0, 0, fmt.Errorf("cordis_run %s: %s (%v)", d.PluginID, out, err)
	}
	_, err = h.tools.Call(ctx, "cordis_undefine", fmt.Appendf(nil, `{"pluginId":%q}`, d.PluginID))
	return calls, withClient, err
}

// invokeBody is the host half of the Invoke figure; invokeFloor defines the same function
// in a plain sandbox mount.
const (
	invokeBody  = `harness.handle('echo', (args) => ({ n: args.n + 1 })); return { name: 'bench-invoke', apply(ctx) {} }`
	invokeFloor = `globalThis.echo = (args) => ({ n: args.n + 1 }); return { name: 'bench-invoke-floor', apply(ctx) {} }`
)

// invokeHandler measures Runner.Invoke of a host handler from Go (run lookup, capability
// check, handler table, JSON in and out) beside the sandbox calling the same function
// directly: one Realm.Deliver with the same JSON conversions.
func (b *bench) invokeHandler(ctx context.Context, r *runner.Runner, floorFirst bool) (err error) {
	d, err := r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "invoke"}, Name: "Invoke",
		Purpose: "A host handler.", Code: dynamic.Code{Host: &[]string{invokeBody}[0]}})
	if err != nil {
		return err
	}
	if _, err := r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		return err
	}
	defer func() {
		_, e := r.Undefine(ctx, dynamic.UndefineInput{PluginID: d.PluginID})
		err = errors.Join(err, e)
	}()
	runID, capability, err := r.RunCapability(ctx, d.PluginID)
	if err != nil {
		return err
	}
	loop := sandbox.New(&sandbox.Options{Timeouts: &sandbox.Timeouts{Call: time.Minute}})
	defer func() { err = errors.Join(err, loop.Close(context.Background())) }()
	m, err := loop.Evaluate(ctx, "bench-invoke-floor", invokeFloor)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, m.Close(context.Background())) }()
	args := json.RawMessage(`{"n":1}`)
	want := `{"n":2}`
	viaRunner := func(iters int) error {
		for range iters {
			out, err := r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d.PluginID, PluginRunID: runID, Capability: capability, Method: "echo", Args: args})
			if err != nil {
				return err
			}
			if string(out) != want {
				return fmt.Errorf("InvokeFromPanel answered %s, want %s", out, want)
			}
		}
		return nil
	}
	// The floor's realm's global object, read once: a Go caller outside the engine reaches
	// the runtime only through Realm.Do, and the call below reads echo from it under the
	// lock, each time, as the runner reads its handler table.
	var global *goja.Object
	if err := m.Realm().Do(ctx, func(rt *goja.Runtime) error { global = rt.GlobalObject(); return nil }); err != nil {
		return err
	}
	direct := func(iters int) error {
		for range iters {
			out, err := callDirect(ctx, m.Realm(), global, args)
			if err != nil {
				return err
			}
			if string(out) != want {
				return fmt.Errorf("the direct call = %s, want %s", out, want)
			}
		}
		return nil
	}
	kitNs, floorNs, err := b.sides(floorFirst, viaRunner, direct)
	if err != nil {
		return err
	}
	b.res.fig("runner-invoke", "Invoke of a host handler from Go, ns", "the same JavaScript function called through the sandbox (Realm.Deliver, JSON in and out)",
		target{maxRatio: 1.5}).add(kitNs, floorNs)
	return nil
}

// callDirect calls echo of global, the realm's global object, with args, as the sandbox
// does for any Go → JavaScript call: one bounded entry, the JSON converted in and out.
func callDirect(ctx context.Context, r *sandbox.Realm, global *goja.Object, args json.RawMessage) (json.RawMessage, error) {
	var out json.RawMessage
	fn := func(goja.Value, ...goja.Value) (goja.Value, error) {
		echo, ok := goja.AssertFunction(global.Get("echo"))
		if !ok {
			return nil, errors.New("echo is not a function")
		}
		return echo(goja.Undefined(), sandbox.FromJSON(r, args))
	}
	err := r.Deliver(ctx, fn, nil, func(res goja.Value) error {
		out = sandbox.ToJSON(r, res, "result")
		return nil
	})
	return out, err
}

// packageHeap records the live heap each defined Package keeps (cfg.live Plugins of one
// Package, none running) beside the Package's source bytes; the target is source + 2 KiB.
func (b *bench) packageHeap(ctx context.Context, r *runner.Runner) error {
	src := b.next()
	ids := make([]string, 0, b.cfg.live)
	before := benchfix.LiveHeap()
	for i := range b.cfg.live {
		host := src + fmt.Sprintf("\n// %06d", i) // distinct, same length
		d, err := r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "heap"}, Name: "Bench",
			Purpose: "The anchors' plugin body.", Code: dynamic.Code{Host: &host}})
		if err != nil {
			return err
		}
		ids = append(ids, d.PluginID)
	}
	after := benchfix.LiveHeap()
	for _, id := range ids {
		if _, err := r.Undefine(ctx, dynamic.UndefineInput{PluginID: id}); err != nil {
			return err
		}
	}
	srcKiB := float64(len(src)+len("\n// 000000")) / 1024
	b.res.fig("runner-package-heap", fmt.Sprintf("retained heap per defined Package (%d Plugins), KiB", b.cfg.live),
		"the Package's host source, KiB", target{maxValue: srcKiB + 2}).add(kib(before, after, b.cfg.live), srcKiB)
	return nil
}

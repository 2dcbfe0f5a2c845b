package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/cordiskit/cordiskit/internal/benchfix"
)

// mountCycle records mount and unmount latency: each side mounts plugin-body.js and
// unmounts it at once, cfg.mounts times after cfg.warm untimed cycles, like the anchors'
// mount bench. The cordiskit side goes through the tool registry: cordis_mount, then
// cordis_unmount, which returns at quiescence with the realm released. The sides take
// turns in chunks of mountChunk cycles, each chunk starting after a collection, so each
// side pays for its own garbage and slow drift in the machine's load hits both.
func (b *bench) mountCycle(ctx context.Context, floorFirst bool) (err error) {
	h, err := newKitHost()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, h.close()) }()
	kit := &cycler{one: func() (time.Duration, time.Duration, error) { return b.kitCycle(ctx, h) }}
	bare := &cycler{one: b.bareCycle(benchfix.NewBareHost())}
	if err := kit.run(b.cfg.warm, false); err != nil {
		return err
	}
	if err := bare.run(b.cfg.warm, false); err != nil {
		return err
	}
	for done, chunk := 0, 0; done < b.cfg.mounts; chunk++ {
		n := min(mountChunk, b.cfg.mounts-done)
		first, second := kit, bare
		if (chunk%2 == 1) != floorFirst {
			first, second = bare, kit
		}
		if err := first.run(n, true); err != nil {
			return err
		}
		if err := second.run(n, true); err != nil {
			return err
		}
		done += n
	}
	const mountFloor = "a bare goja runtime evaluating the same body: console, compile, run, await, apply(ctx) with a native ctx.on (the anchors' host.go)"
	const unmountFloor = "the bare host dropping the plugin's listeners and its runtime (Go GC does the rest)"
	km, ku, bm, bu := us(kit.mounts), us(kit.unmounts), us(bare.mounts), us(bare.unmounts)
	b.res.fig("mount-p50", "mount p50, µs", mountFloor, target{maxRatio: 1.25}).add(percentile(km, .5), percentile(bm, .5))
	b.res.fig("mount-p99", "mount p99, µs", mountFloor, target{maxRatio: 1.5}).add(percentile(km, .99), percentile(bm, .99))
	b.res.fig("unmount-p50", "unmount to quiescence p50, µs", unmountFloor, target{maxValue: 20}).add(percentile(ku, .5), percentile(bu, .5))
	b.res.fig("unmount-p99", "unmount to quiescence p99, µs", unmountFloor, target{maxValue: 20}).add(percentile(ku, .99), percentile(bu, .99))
	return nil
}

const mountChunk = 100

// A cycler runs one side's mount cycles and keeps their latencies.
type cycler struct {
	one              func() (mount, unmount time.Duration, err error)
	mounts, unmounts []time.Duration
}

func (c *cycler) run(n int, keep bool) error {
	runtime.GC()
	for range n {
		m, u, err := c.one()
		if err != nil {
			return err
		}
		if keep {
			c.mounts = append(c.mounts, m)
			c.unmounts = append(c.unmounts, u)
		}
	}
	return nil
}

// kitCycle mounts through cordis_mount and unmounts through cordis_unmount. The JSON
// arguments are built, and the result decoded, outside the timed calls.
func (b *bench) kitCycle(ctx context.Context, h *kitHost) (mount, unmount time.Duration, err error) {
	in := mountInput(b.next())
	t0 := time.Now()
	out, err := h.mount(ctx, in)
	mount = time.Since(t0)
	if err != nil {
		return 0, 0, err
	}
	id, err := mountedID(out)
	if err != nil {
		return 0, 0, err
	}
	uin := unmountInput(id)
	t0 = time.Now()
	err = h.unmount(ctx, uin)
	return mount, time.Since(t0), err
}

func (b *bench) bareCycle(h *benchfix.BareHost) func() (time.Duration, time.Duration, error) {
	return func() (mount, unmount time.Duration, err error) {
		src := benchfix.BareSource(b.next())
		t0 := time.Now()
		pl, err := h.Mount(src)
		mount = time.Since(t0)
		if err != nil {
			return 0, 0, err
		}
		if n := h.Listeners(Tick.Name()); n != 1 {
			return 0, 0, fmt.Errorf("bare mount: %d listeners, want 1", n)
		}
		t0 = time.Now()
		h.Unmount(pl)
		return mount, time.Since(t0), nil
	}
}

// heap records the live heap per mount with cfg.live mounts alive, each listening.
func (b *bench) heap(ctx context.Context, floorFirst bool) error {
	var kit, bare float64
	err := pair(floorFirst, func() (err error) {
		kit, err = b.kitHeap(ctx)
		return err
	}, func() (err error) {
		bare, err = b.bareHeap()
		return err
	})
	if err != nil {
		return err
	}
	b.res.fig("heap", fmt.Sprintf("heap per live mount at %d mounts, KiB", b.cfg.live),
		"live bare goja runtimes of the same body with their listener registered", target{maxValue: 48}).add(kit, bare)
	return nil
}

func kib(before, after uint64, n int) float64 {
	return float64(int64(after)-int64(before)) / float64(n) / 1024
}

func (b *bench) kitHeap(ctx context.Context) (perMount float64, err error) {
	h, err := newKitHost()
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, h.close()) }()
	for range min(50, b.cfg.warm) {
		id, err := h.mountID(ctx, b.next())
		if err != nil {
			return 0, err
		}
		if err := h.unmount(ctx, unmountInput(id)); err != nil {
			return 0, err
		}
	}
	ids := make([]string, 0, b.cfg.live)
	before := benchfix.LiveHeap()
	for range b.cfg.live {
		id, err := h.mountID(ctx, b.next())
		if err != nil {
			return 0, err
		}
		ids = append(ids, id)
	}
	after := benchfix.LiveHeap()
	Tick.Emit(h.root, TickEvent{ID: 1, Text: "hello"}) // every mount is alive and listening
	for _, id := range ids {
		if err := h.unmount(ctx, unmountInput(id)); err != nil {
			return 0, err
		}
	}
	return kib(before, after, b.cfg.live), nil
}

func (b *bench) bareHeap() (float64, error) {
	h := benchfix.NewBareHost()
	for range min(50, b.cfg.warm) {
		pl, err := h.Mount(benchfix.BareSource(b.next()))
		if err != nil {
			return 0, err
		}
		h.Unmount(pl)
	}
	live := make([]*benchfix.BarePlugin, 0, b.cfg.live)
	before := benchfix.LiveHeap()
	for range b.cfg.live {
		pl, err := h.Mount(benchfix.BareSource(b.next()))
		if err != nil {
			return 0, err
		}
		live = append(live, pl)
	}
	after := benchfix.LiveHeap()
	if err := h.Emit(Tick.Name(), 1, "hello"); err != nil {
		return 0, err
	}
	runtime.KeepAlive(live)
	return kib(before, after, b.cfg.live), nil
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/kit"
)

// The sessions group measures the engines per session (the sandbox runs each session's
// JavaScript under a lock of its own). Fairness: a bystander session's tool call while two
// other sessions each call a tool that spins JavaScript back to back, beside the same call
// on the idle runtime, in alternating chunks of mountChunk calls (benchfix.Bystander).
// Parallelism: two sessions each calling a tool that runs a fixed loop of JavaScript,
// concurrently, with GOMAXPROCS=2 beside GOMAXPROCS=1, alternately; and, to read it by, two
// goroutines running a Go loop the same way — what the machine gives two threads at the
// moment (on a busy machine neither can reach 2×).
func (b *bench) sessionsGroup(ctx context.Context, floorFirst bool) (err error) {
	h, err := newKitHost()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, h.close(), h.failures()) }()
	empty := json.RawMessage(`{}`)
	call := func(ctx context.Context, session, tool string) error {
		_, err := h.tools.Session(session).Call(kit.WithSession(ctx, session), tool, empty)
		return err
	}
	spinners := map[string]string{"spin-a": "spin_a", "spin-b": "spin_b"}
	work := map[string]string{"work-a": "work_a", "work-b": "work_b"}
	bodies := map[string]string{"bystander": benchfix.EchoBody("bystander_echo")}
	for s, tool := range spinners {
		bodies[s] = benchfix.SpinBody(tool, b.cfg.sessions.spinMs)
	}
	for s, tool := range work {
		bodies[s] = benchfix.WorkBody(tool, b.cfg.sessions.loop)
	}
	for s, body := range bodies {
		if _, err := h.mountID(kit.WithSession(ctx, s), body); err != nil {
			return err
		}
	}
	chunk := min(mountChunk, b.cfg.mounts)
	busy, idle, err := benchfix.Bystander(ctx, call, spinners, "bystander", "bystander_echo", max(1, b.cfg.mounts/chunk), chunk, floorFirst)
	if err != nil {
		return err
	}
	const idleFloor = "the same call on the idle runtime (the spinning sessions mounted, not called)"
	bu, iu := us(busy), us(idle)
	b.res.fig("sessions-bystander-p50", "bystander session's tool call while two sessions spin, p50, µs", idleFloor, target{}).add(percentile(bu, .5), percentile(iu, .5))
	b.res.fig("sessions-bystander-p99", "bystander session's tool call while two sessions spin, p99, µs", idleFloor, target{maxRatio: 3}).add(percentile(bu, .99), percentile(iu, .99))

	var one, two, goOne, goTwo time.Duration
	for i := range b.cfg.sessions.parallel {
		for _, procs := range []int{1 + i%2, 2 - i%2} {
			d, err := benchfix.Parallel(ctx, call, work, 1, procs)
			if err != nil {
				return err
			}
			g := benchfix.ParallelGo(b.cfg.sessions.loop*40, procs)
			if procs == 1 {
				one, goOne = one+d, goOne+g
			} else {
				two, goTwo = two+d, goTwo+g
			}
		}
	}
	runs := float64(2 * b.cfg.sessions.parallel)
	b.res.fig("sessions-parallel", "two sessions' JavaScript, calls/s with GOMAXPROCS=2", "the same with GOMAXPROCS=1",
		target{minRatio: 1.7}).add(runs/two.Seconds(), runs/one.Seconds())
	b.res.fig("sessions-parallel-go", "two goroutines' Go loop (what the machine gives two threads), runs/s with GOMAXPROCS=2", "the same with GOMAXPROCS=1",
		target{}).add(runs/goTwo.Seconds(), runs/goOne.Seconds())
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/cordiskit/cordiskit/internal/benchfix"
)

// config sizes a run. full is the documented run; quick a smoke run; tiny the test's.
type config struct {
	rounds    int
	mounts    int // timed mount cycles per round and side
	warm      int // untimed mount cycles before them
	live      int // live mounts for the heap figure
	listeners int // k for the Go → JS and Go → Go figures
	batch     batcher
	synth     benchfix.SynthSize
	sessions  sessionsSize
	only      map[string]bool // groups to run; empty means all
}

// sessionsSize sizes the sessions group: how long a spinning call spins, the turns of the
// work loop, and the calls per session on each side of the parallelism figure.
type sessionsSize struct{ spinMs, loop, parallel int }

var (
	fullConfig = config{
		rounds: 5, mounts: 2000, warm: 100, live: 1000, listeners: 100,
		batch:    batcher{ms: 40, warm: 3, batches: 15},
		synth:    benchfix.Budget,
		sessions: sessionsSize{spinMs: 50, loop: 100_000, parallel: 20},
	}
	quickConfig = config{
		rounds: 2, mounts: 300, warm: 30, live: 1000, listeners: 20,
		batch:    batcher{ms: 10, warm: 1, batches: 5},
		synth:    benchfix.SynthSize{Pkgs: 2, Events: 100, Services: 40, Methods: 10, Tools: 10},
		sessions: sessionsSize{spinMs: 20, loop: 50_000, parallel: 6},
	}
	tinyConfig = config{
		rounds: 1, mounts: 10, warm: 2, live: 20, listeners: 3,
		batch:    batcher{ms: 1, warm: 0, batches: 2},
		synth:    benchfix.SynthSize{Pkgs: 1, Events: 5, Services: 2, Methods: 2, Tools: 1},
		sessions: sessionsSize{spinMs: 5, loop: 1000, parallel: 1},
	}
)

// groups are the parts of a round, in run order; each records one or more figures.
var groups = []struct {
	name string
	run  func(b *bench, ctx context.Context, floorFirst bool) error
}{
	{"mount", (*bench).mountCycle},
	{"heap", (*bench).heap},
	{"gotojs", (*bench).goToJS},
	{"gotogo", (*bench).goToGo},
	{"jstogo", (*bench).jsToGo},
	{"pipeline", (*bench).pipeline},
	{"runner", (*bench).runnerGroup},
	{runnerScaleGroup, (*bench).runnerScale},
	{"sessions", (*bench).sessionsGroup},
}

// bench is one run: its configuration, its results and what the groups share.
type bench struct {
	cfg   config
	body  string // plugin-body.js with the catalogued event
	log   io.Writer
	res   *results
	seq   int // makes every mounted source distinct, as the anchors' __ID__ does
	round int
	mod   *synthModule
}

// catalogued replaces the anchors' 'some/event' with the event the kit catalogues.
func catalogued(body string) string { return benchfix.OnEvent(body, Tick.Name()) }

// next returns the body with a fresh __ID__.
func (b *bench) next() string {
	b.seq++
	return benchfix.WithID(b.body, b.seq)
}

// run runs every round and returns the figures. Progress goes to b.log.
func (b *bench) run(ctx context.Context) (*results, error) {
	b.res = newResults()
	defer b.cleanup()
	for round := range b.cfg.rounds {
		b.round = round
		for _, g := range groups {
			if len(b.cfg.only) > 0 && !b.cfg.only[g.name] {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			// The floor goes first in odd rounds, so slow drift favours neither side.
			if err := g.run(b, ctx, round%2 == 1); err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", round+1, g.name, err)
			}
			fmt.Fprintf(b.log, "round %d/%d: %-8s %6.2fs\n", round+1, b.cfg.rounds, g.name, time.Since(t0).Seconds())
		}
	}
	return b.res, nil
}

func (b *bench) cleanup() {
	if b.mod != nil {
		_ = os.RemoveAll(b.mod.dir)
	}
}

// pair runs the figure's side and the floor's side in the round's order.
func pair(floorFirst bool, side, floor func() error) error {
	first, second := side, floor
	if floorFirst {
		first, second = floor, side
	}
	runtime.GC()
	if err := first(); err != nil {
		return err
	}
	runtime.GC()
	return second()
}

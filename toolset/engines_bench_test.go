package toolset_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// sessionsBench is a runtime with a toolset whose mounts are made, and tools called, by
// sessions, through the registry's JSON API.
type sessionsBench struct {
	tools *kit.Tools
}

func newSessionsBench(b *testing.B) *sessionsBench {
	b.Helper()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts, err := toolset.New(root, &toolset.Options{Timeouts: &sandbox.Timeouts{Call: time.Minute}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := ts.Dispose(context.Background()); err != nil {
			b.Error(err)
		}
		root.Fiber().Dispose(context.Background())
	})
	tools, _ := kit.ToolsService.Get(root)
	return &sessionsBench{tools: tools}
}

func (s *sessionsBench) mount(b *testing.B, session, code string) {
	b.Helper()
	in, _ := json.Marshal(map[string]string{"code": code})
	if err := s.call(context.Background(), session, "cordis_mount", in); err != nil {
		b.Fatal(err)
	}
}

func (s *sessionsBench) call(ctx context.Context, session, tool string, in json.RawMessage) error {
	_, err := s.tools.Session(session).Call(kit.WithSession(ctx, session), tool, in)
	return err
}

// caller calls tools with no arguments.
func (s *sessionsBench) caller() benchfix.Caller {
	empty := json.RawMessage(`{}`)
	return func(ctx context.Context, session, tool string) error { return s.call(ctx, session, tool, empty) }
}

// BenchmarkBystanderWhileTwoSessionsSpin is the fairness figure: a bystander session's tool
// call while two other sessions each call a tool that spins 50 ms of JavaScript, back to
// back, beside the same call on the idle runtime (its floor), in alternating chunks of 100
// calls; b.N calls per side. Reported: each side's p50 and p99 in µs and p99-ratio (target
// ≤ 3). Run it with -benchtime 2000x for a stable p99.
func BenchmarkBystanderWhileTwoSessionsSpin(b *testing.B) {
	s := newSessionsBench(b)
	spinners := map[string]string{"spin-a": "spin_a", "spin-b": "spin_b"}
	for session, tool := range spinners {
		s.mount(b, session, benchfix.SpinBody(tool, 50))
	}
	s.mount(b, "bystander", benchfix.EchoBody("bystander_echo"))
	const chunk = 100
	chunks := max(1, (b.N+chunk-1)/chunk)
	b.ResetTimer()
	busy, idle, err := benchfix.Bystander(context.Background(), s.caller(), spinners, "bystander", "bystander_echo", chunks, chunk, false)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	p99busy, p99idle := quantile(busy, .99), quantile(idle, .99)
	b.ReportMetric(quantile(busy, .5), "p50-busy-µs")
	b.ReportMetric(quantile(idle, .5), "p50-idle-µs")
	b.ReportMetric(p99busy, "p99-busy-µs")
	b.ReportMetric(p99idle, "p99-idle-µs")
	b.ReportMetric(p99busy/p99idle, "p99-ratio")
}

// BenchmarkTwoSessionsParallel is the parallelism figure: two sessions each call a tool
// that runs a fixed loop of JavaScript, concurrently, with GOMAXPROCS=2 beside the same
// with GOMAXPROCS=1 (its floor), alternately; each iteration is one call per session on
// each side. Reported: calls/s on each side and speedup (target ≥ 1.7), and go-speedup, the
// same for two goroutines running the loop in Go: what the machine gives two threads at the
// moment, to read speedup by.
func BenchmarkTwoSessionsParallel(b *testing.B) {
	s := newSessionsBench(b)
	work := map[string]string{"work-a": "work_a", "work-b": "work_b"}
	for session, tool := range work {
		s.mount(b, session, benchfix.WorkBody(tool, 100_000))
	}
	ctx, call := context.Background(), s.caller()
	var one, two, goOne, goTwo time.Duration
	b.ResetTimer()
	for i := range b.N {
		for _, procs := range []int{1 + i%2, 2 - i%2} {
			d, err := benchfix.Parallel(ctx, call, work, 1, procs)
			if err != nil {
				b.Fatal(err)
			}
			g := benchfix.ParallelGo(4_000_000, procs)
			if procs == 1 {
				one, goOne = one+d, goOne+g
			} else {
				two, goTwo = two+d, goTwo+g
			}
		}
	}
	b.StopTimer()
	calls := float64(2 * b.N)
	b.ReportMetric(calls/one.Seconds(), "calls/s-procs1")
	b.ReportMetric(calls/two.Seconds(), "calls/s-procs2")
	b.ReportMetric(one.Seconds()/two.Seconds(), "speedup")
	b.ReportMetric(goOne.Seconds()/goTwo.Seconds(), "go-speedup")
}

// quantile returns the nearest-rank q-quantile of ds in µs.
func quantile(ds []time.Duration, q float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return float64(s[min(max(i, 0), len(s)-1)].Nanoseconds()) / 1e3
}

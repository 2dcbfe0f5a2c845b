package pgstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/jackc/pgx/v5"
)

// BenchmarkChangeSeenAcross times how long another process's change takes to reach a
// runner's listeners — an Update committed by one Store (a grant's flag, which a panel
// shows) until the runner on another Store emits DefinitionChanged for it, its session
// read back from the store first — beside its floor on the same server: a bare pg_notify
// committed on one connection until another connection that LISTENs receives it.
// Reported: seen-p50-us and floor-p50-us, and their ratio (ratio-p50), with the p99s.
func BenchmarkChangeSeenAcross(b *testing.B) {
	dsn := pgtest.DSN(b)
	a := open(b, dsn, &Options{LeaseTTL: time.Hour})
	rootB, _, _ := newRelayRunner(b, dsn, &Options{LeaseTTL: time.Hour}, runner.Options{})
	heard := relayed(b, rootB)
	p, _, err := a.Define(bg, runner.Definition{Session: "alice", Prefix: "clock", Name: "Clock", Purpose: "Ticks.", Host: "return (ctx) => {}"})
	if err != nil {
		b.Fatal(err)
	}
	wait := func() runner.DefinitionChangedEvent {
		select {
		case ev := <-heard:
			return ev
		case <-time.After(time.Minute):
			b.Fatal("no change told within a minute")
			return runner.DefinitionChangedEvent{}
		}
	}
	wait() // the define
	listener, sender := connect(b, dsn), connect(b, dsn)
	if _, err := listener.Exec(bg, "LISTEN bench_floor"); err != nil {
		b.Fatal(err)
	}
	var seen, floor []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if _, err := sender.Exec(bg, "SELECT pg_notify('bench_floor', 'x')"); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(bg, time.Minute)
		_, err := listener.WaitForNotification(ctx)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		floor = append(floor, time.Since(start))

		i++
		start = time.Now()
		if _, err := a.Update(bg, p.ID, runner.Change{Future: ptr(i%2 == 1)}); err != nil {
			b.Fatal(err)
		}
		if ev := wait(); ev != (runner.DefinitionChangedEvent{Session: "alice", PluginID: p.ID, Change: runner.Updated}) {
			b.Fatalf("told %+v", ev)
		}
		seen = append(seen, time.Since(start))
	}
	q := func(ds []time.Duration, f float64) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[int(f*float64(len(ds)-1))].Microseconds())
	}
	b.ReportMetric(q(seen, 0.5), "seen-p50-us")
	b.ReportMetric(q(floor, 0.5), "floor-p50-us")
	b.ReportMetric(q(seen, 0.5)/q(floor, 0.5), "ratio-p50")
	b.ReportMetric(q(seen, 0.99), "seen-p99-us")
	b.ReportMetric(q(floor, 0.99), "floor-p99-us")
}

// connect opens a connection to dsn, closed when tb ends.
func connect(tb testing.TB, dsn string) *pgx.Conn {
	tb.Helper()
	conn, err := pgx.Connect(bg, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close(bg) })
	return conn
}

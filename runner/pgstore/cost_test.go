package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/jackc/pgx/v5"
)

// BenchmarkOperationCost measures what each operation of a runtime on the store costs the
// database, one operation at a time, on a cluster of its own with pg_stat_statements:
//
//	go test -run '^$' -bench OperationCost -benchtime 200x ./runner/pgstore
//
// The tools go through a runner on the Store and an Invoker (cordis_define of a new
// Plugin and of a new Package, cordis_run and cordis_stop of a host-only Package,
// cordis_inspect_self {}); the Store's background work is called as its loops call it
// (a renewal of 1, 16 and 64 leases, a look for orphans, a NOTIFY of a change). Per
// operation:
//
//   - stmts/op: statements the server ran (pg_stat_statements' calls, BEGIN and COMMIT
//     included);
//   - round-trips/op: the times a connection's client spoke after the server had (a proxy
//     on the unix socket counts them);
//   - server-µs/op: the statements' execution and planning time on the server;
//   - p50-µs: the operation's time in the client, beside rtt-µs, a SELECT 1 through the
//     same proxy (the floor of one round trip).
//
// The runner's look for orphans (every 500 ms) runs meanwhile; its statements and round
// trips are taken out of the other operations' figures, and counted with the
// orphan-poll operations' own.
func BenchmarkOperationCost(b *testing.B) {
	srv := statsCluster(b)
	dsn, stats := srv.database(b)
	px := newTurnProxy(b, dsn)
	s := open(b, px.dsn, &Options{LeaseTTL: time.Hour})
	root := kit.New(nil)
	r, err := runner.New(root, &runner.Options{Store: s, RestartAtBoot: true})
	if err != nil {
		b.Fatal(err)
	}
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(bg, time.Minute)
		defer cancel()
		if err := errors.Join(inv.Close(ctx), r.Dispose(ctx), root.Fiber().Dispose(ctx)); err != nil {
			b.Error(err)
		}
	})
	floor := pool(b, px.dsn)
	m := &costMeter{px: px, stats: stats}
	tool := func(b *testing.B, session, name string, args map[string]any, out any) {
		raw, _ := json.Marshal(args)
		ans, err := inv.InvokeSession(bg, session, name, raw)
		if err == nil && out != nil {
			err = json.Unmarshal(ans, out)
		}
		if err != nil {
			b.Fatalf("%s %s: %v", session, name, err)
		}
	}
	type defined struct{ session, PluginID, PackageID string }
	define := func(b *testing.B, session string) defined {
		d := defined{session: session}
		tool(b, session, "cordis_define", map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": "cost"},
			"name": "Cost", "purpose": "A benchmark's.", "code": map[string]string{"host": loadHost}}, &d)
		return d
	}
	session := func(i int) string { return fmt.Sprint("s", i/16) } // 16 Plugins a session
	// Warm every connection of the pool: each prepares a statement on its first use.
	for range 64 {
		d := define(b, "warm")
		tool(b, "warm", "cordis_run", map[string]any{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"}, nil)
		tool(b, "warm", "cordis_stop", map[string]any{"pluginId": d.PluginID}, nil)
		tool(b, "warm", "cordis_inspect_self", map[string]any{}, nil)
		tool(b, "warm", "cordis_undefine", map[string]any{"pluginId": d.PluginID}, nil)
	}

	b.Run("rtt", func(b *testing.B) {
		m.measure(b, false, nil, func(int) {
			var one int
			if err := floor.QueryRow(bg, "SELECT 1").Scan(&one); err != nil {
				b.Fatal(err)
			}
		})
	})
	var plugins []defined
	b.Run("define-new", func(b *testing.B) {
		m.measure(b, false, nil, func(i int) { plugins = append(plugins, define(b, session(len(plugins)))) })
	})
	b.Run("define-package", func(b *testing.B) {
		m.measure(b, false, nil, func(i int) {
			p := plugins[i%len(plugins)]
			tool(b, p.session, "cordis_define", map[string]any{"plugin": map[string]string{"kind": "existing", "pluginId": p.PluginID},
				"name": "Cost", "purpose": "A benchmark's, again.", "code": map[string]string{"host": loadHost}}, nil)
		})
	})
	var stopped []defined // defined and stopped: "run" runs them
	var running []defined // run: "stop" stops them
	runSession := func(i int) string { return "run-" + session(i) }
	b.Run("run", func(b *testing.B) {
		m.measure(b, false, func() {
			for len(stopped) < b.N {
				stopped = append(stopped, define(b, runSession(len(stopped)+len(running))))
			}
		}, func(int) {
			d := stopped[0]
			tool(b, d.session, "cordis_run", map[string]any{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"}, nil)
			stopped, running = stopped[1:], append(running, d)
		})
	})
	b.Run("stop", func(b *testing.B) {
		m.measure(b, false, func() {
			for len(running) < b.N {
				d := define(b, runSession(len(stopped)+len(running)))
				tool(b, d.session, "cordis_run", map[string]any{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"}, nil)
				running = append(running, d)
			}
		}, func(int) {
			d := running[0]
			tool(b, d.session, "cordis_stop", map[string]any{"pluginId": d.PluginID}, nil)
			running, stopped = running[1:], append(stopped, d)
		})
	})
	b.Run("inspect-self", func(b *testing.B) {
		m.measure(b, false, nil, func(i int) { tool(b, session(i%len(plugins)), "cordis_inspect_self", map[string]any{}, nil) })
	})
	leased := 0 // sessions lease-0… with a Plugin running
	for _, k := range []int{1, 16, 64} {
		b.Run(fmt.Sprint("renew-", k), func(b *testing.B) {
			m.measure(b, false, func() {
				for ; leased < k; leased++ {
					d := define(b, fmt.Sprint("lease-", leased))
					tool(b, d.session, "cordis_run", map[string]any{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"}, nil)
				}
				s.renew(bg) // gives up the leases of the sessions "stop" left idle
			}, func(int) {
				s.renew(bg)
				s.leases.mu.Lock()
				n := len(s.leases.held)
				s.leases.mu.Unlock()
				if n != k {
					b.Fatalf("the Store holds %d leases after a renewal, want %d", n, k)
				}
			})
		})
	}
	// The look for orphans reads every running Plugin: it is measured with the 64 the
	// renewals left running, then with Plugins of other live processes' sessions added
	// in SQL (two per session, each session leased), up to 1,000 and 10,000.
	bulk := 0
	for _, running := range []int{64, 1000, 10000} {
		b.Run(fmt.Sprint("orphan-poll-", running), func(b *testing.B) {
			m.measure(b, true, func() {
				if add := running - 64 - bulk; add > 0 {
					execSQL(b, dsn, fmt.Sprintf(`INSERT INTO cordis.plugins (n, id, session, prefix, defined_by, listing_name, package_count, running)
						SELECT 1000000 + g, 'bulk-' || g, 'bulk-s' || g / 2, 'bulk', 'another process', 'Bulk', 0, true FROM generate_series(%d, %d) g`, bulk+1, bulk+add),
						fmt.Sprintf(`INSERT INTO cordis.leases (session, owner, fence, expires)
						SELECT DISTINCT 'bulk-s' || g / 2, 'another process', 1, now() + interval '1 hour' FROM generate_series(%d, %d) g ON CONFLICT DO NOTHING`, bulk+1, bulk+add),
						"ANALYZE")
					bulk += add
				}
				if got := queryInt(b, dsn, "SELECT count(*) FROM cordis.plugins WHERE running"); got != int64(running) {
					b.Fatalf("%d Plugins are running, want %d", got, running)
				}
			}, func(int) {
				if _, err := s.OrphanedSessions(bg); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
	b.Run("notify", func(b *testing.B) {
		m.measure(b, false, nil, func(i int) {
			if _, err := floor.Exec(bg, notifyChange, "another-schema", "cost", "s", "cost-1", "pkg-1", "defined"); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// costMeter measures operations with the proxy's round trips and the database's
// pg_stat_statements.
type costMeter struct {
	px    *turnProxy
	stats *statsDB
}

// orphansQuery is the start of the runner's look for orphans, whose calls meanwhile are
// taken out of the figures.
var orphansQuery = regexp.MustCompile(`^SELECT DISTINCT p\.session FROM plugins p LEFT JOIN leases`)

// measure runs setup, then op b.N times, and reports its cost per operation; the
// runner's looks for orphans meanwhile are taken out unless op is one (orphanPoll).
func (m *costMeter) measure(b *testing.B, orphanPoll bool, setup func(), op func(i int)) {
	if setup != nil {
		setup()
	}
	time.Sleep(50 * time.Millisecond) // what setup started settles
	m.stats.reset(b)
	turns0 := m.px.turns.Load()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		op(i)
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	time.Sleep(50 * time.Millisecond) // what the last operation started settles
	turns := m.px.turns.Load() - turns0
	st := m.stats.read(b)
	calls, ms := st.calls, st.totalMS
	n := float64(b.N)
	for _, x := range st.stmts {
		switch {
		case !orphansQuery.MatchString(x.query):
		case orphanPoll:
			n = float64(x.calls) // op's calls and the runner's own, alike
		default:
			calls, ms, turns = calls-x.calls, ms-x.ms, turns-x.calls
		}
	}
	b.ReportMetric(float64(calls)/n, "stmts/op")
	b.ReportMetric(float64(turns)/n, "round-trips/op")
	b.ReportMetric(ms*1e3/n, "server-µs/op")
	b.ReportMetric(float64(p50(lat).Nanoseconds())/1e3, "p50-µs")
	if testing.Verbose() && b.N > 1 {
		for _, x := range st.stmts {
			if !orphansQuery.MatchString(x.query) || orphanPoll {
				b.Logf("%6.2f calls/op %8.1f µs/op  %.90s", float64(x.calls)/n, x.ms*1e3/n, x.query)
			}
		}
	}
}

// A turnProxy forwards a unix socket to the cluster's and counts round trips: each time
// a connection's client sends after the server last sent (or first), one more.
type turnProxy struct {
	dsn   string // the database's DSN through the proxy
	turns atomic.Int64
}

func newTurnProxy(b *testing.B, dsn string) *turnProxy {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		b.Fatal(err)
	}
	target := filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port))
	dir := b.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", cfg.Port)))
	if err != nil {
		b.Fatal(err)
	}
	p := &turnProxy{dsn: fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", dir, cfg.Port, cfg.User, cfg.Database)}
	var conns sync.WaitGroup
	b.Cleanup(func() {
		ln.Close()
		conns.Wait()
	})
	conns.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() { p.forward(c, target) })
		}
	})
	return p
}

// forward copies between client c and the server until either side closes.
func (p *turnProxy) forward(c net.Conn, target string) {
	defer c.Close()
	s, err := net.Dial("unix", target)
	if err != nil {
		return
	}
	defer s.Close()
	var mu sync.Mutex
	serverSpoke := true
	copyCounting := func(dst, src net.Conn, fromClient bool) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				mu.Lock()
				if fromClient && serverSpoke {
					p.turns.Add(1)
				}
				serverSpoke = !fromClient
				mu.Unlock()
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return // io.EOF or a closed connection
			}
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		copyCounting(s, c, true)
		s.Close()
	})
	copyCounting(c, s, false)
	c.Close()
	wg.Wait()
}

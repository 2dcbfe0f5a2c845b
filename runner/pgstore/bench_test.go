package pgstore

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/jackc/pgx/v5/pgxpool"
)

// hostSrc and clientSrc make a Package of realistic size, as sqlstore's figures do: a
// 2 KB host half and a 4 KB client half.
var hostSrc, clientSrc = strings.Repeat("h", 2<<10), strings.Repeat("c", 4<<10)

// paired times store and floor alternately, once each per iteration, so that both see
// the same machine, and reports the p50 of each (µs) and their ratio.
func paired(b *testing.B, store, floor func(i int)) {
	b.Helper()
	var ts, tf []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		floor(i)
		t1 := time.Now()
		store(i)
		ts, tf = append(ts, time.Since(t1)), append(tf, t1.Sub(t0))
		i++
	}
	ps, pf := p50(ts), p50(tf)
	b.ReportMetric(float64(ps.Nanoseconds())/1e3, "p50-store-µs")
	b.ReportMetric(float64(pf.Nanoseconds())/1e3, "p50-floor-µs")
	b.ReportMetric(float64(ps)/float64(pf), "p50-ratio")
}

func p50(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func pool(b *testing.B, dsn string) *pgxpool.Pool {
	b.Helper()
	p, err := pgxpool.New(bg, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	return p
}

// BenchmarkDefine is what cordis_define asks of the store — a Define with the runner's
// default caps, which the store counts in the define's transaction — beside its floor, a
// bare INSERT of the same bytes (the Package's name, purpose, halves and session) as one
// statement, its own transaction, on the same server. new: a new Plugin, in a session of
// 8; package: a new Package of one of 512 Plugins, in turn, each with ≈5 Packages after
// 2,000. Target: p50-ratio ≤ 3.
func BenchmarkDefine(b *testing.B) {
	dsn := pgtest.DSN(b)
	s := open(b, dsn, nil)
	bare := pool(b, dsn)
	if _, err := bare.Exec(bg, "CREATE TABLE public.bare (id bigserial PRIMARY KEY, session text, name text, purpose text, host text, client text)"); err != nil {
		b.Fatal(err)
	}
	const sessions = 64
	var plugins []string
	for i := range sessions {
		for range 8 {
			l, _, err := s.Define(bg, runner.Definition{Session: fmt.Sprint("s", i), Prefix: "seed", Name: "Seed", Purpose: "A benchmark's.", Host: hostSrc, Client: clientSrc})
			if err != nil {
				b.Fatal(err)
			}
			plugins = append(plugins, l.ID)
		}
	}
	floor := func(i int) {
		if _, err := bare.Exec(bg, "INSERT INTO public.bare (session, name, purpose, host, client) VALUES ($1, $2, $3, $4, $5)", fmt.Sprint("s", i%sessions), "Bench", "A benchmark's.", hostSrc, clientSrc); err != nil {
			b.Fatal(err)
		}
	}
	define := func(d runner.Definition) {
		d.MaxPlugins, d.MaxPackages = runner.DefaultMaxPluginsPerSession, runner.DefaultMaxPackagesPerSession
		if _, _, err := s.Define(bg, d); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("new", func(b *testing.B) {
		paired(b, func(i int) {
			// A new session every 8 defines, so each holds 8 when it defines.
			define(runner.Definition{Session: fmt.Sprint("n", i/8), Prefix: "bench", Name: "Bench", Purpose: "A benchmark's.", Host: hostSrc, Client: clientSrc})
		}, floor)
	})
	b.Run("package", func(b *testing.B) {
		paired(b, func(i int) {
			p := i % len(plugins) // each of the 512 in turn: ≈5 Packages each after 2,000
			define(runner.Definition{Session: fmt.Sprint("s", p/8), PluginID: plugins[p], Name: "Bench", Purpose: "A benchmark's.", Host: hostSrc, Client: clientSrc})
		}, floor)
	})
}

// BenchmarkRestore reads every Plugin, as the runner does at boot (Plugins of every
// session): 10,000 Packages (each a 2 KB host and a 4 KB client half) of 2,000 Plugins in
// 50 sessions, each Plugin with a latest attempt and a grant, beside its floor, a bare
// SELECT of the Packages' rows into Go values on the same server. Target: p50-ratio ≤ 2.
func BenchmarkRestore(b *testing.B) {
	const plugins, perPlugin = 2000, 5
	dsn := pgtest.DSN(b)
	s := open(b, dsn, nil)
	attempt := `{"pluginRunId":"run-1","packageId":"pkg-5","mode":"run","status":"running","host":{"status":"running"},"client":{"status":"absent"}}`
	bare := pool(b, dsn)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{fmt.Sprintf("INSERT INTO cordis.plugins (n, id, session, prefix, defined_by, current, latest, latest_pkg, running, listing_name, package_count) SELECT g, 'bench-' || g, 's' || (g %% 50), 'bench', 'setup', g * %[1]d, $1::jsonb, g * %[1]d, true, 'Bench ' || g * %[1]d, %[1]d FROM generate_series(1, %[2]d) g", perPlugin, plugins), []any{attempt}},
		{fmt.Sprintf("INSERT INTO cordis.packages (n, plugin, name, purpose, host, client) SELECT g, (g - 1) / %d + 1, 'Bench ' || g, 'A benchmark''s.', $1, $2 FROM generate_series(1, %d) g", perPlugin, plugins*perPlugin), []any{hostSrc, clientSrc}},
		{fmt.Sprintf("INSERT INTO cordis.grants (plugin, package) SELECT g, g * %d FROM generate_series(1, %d) g", perPlugin, plugins), nil},
		{fmt.Sprintf("UPDATE cordis.counters SET value = CASE name WHEN 'plugin' THEN %d WHEN 'package' THEN %d ELSE 1 END", plugins, plugins*perPlugin), nil},
	} {
		if _, err := bare.Exec(bg, q.sql, q.args...); err != nil {
			b.Fatalf("%s: %v", q.sql, err)
		}
	}
	if _, err := bare.Exec(bg, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	type row struct {
		n, plugin                   int64
		name, purpose, host, client *string
	}
	paired(b, func(int) {
		ps, err := s.Plugins(bg, "")
		if err != nil || len(ps) != plugins {
			b.Fatalf("restored %d plugins (%v), want %d", len(ps), err, plugins)
		}
	}, func(int) {
		rows, err := bare.Query(bg, "SELECT n, plugin, name, purpose, host, client FROM cordis.packages")
		if err != nil {
			b.Fatal(err)
		}
		var out []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.n, &r.plugin, &r.name, &r.purpose, &r.host, &r.client); err != nil {
				b.Fatal(err)
			}
			out = append(out, r)
		}
		if rows.Err() != nil || len(out) != plugins*perPlugin {
			b.Fatalf("selected %d packages (%v)", len(out), rows.Err())
		}
	})
}

package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/jackc/pgx/v5"
)

// hostRuns is where the host halves of the runner children record themselves: one row per
// start, with the process that ran it, stamped with the server's clock at start and stop.
const hostRuns = `CREATE TABLE public.host_runs (plugin text NOT NULL, pid int NOT NULL,
	started timestamptz NOT NULL DEFAULT clock_timestamp(), stopped timestamptz)`

// recordingHost is a HostStarter whose halves record their start and stop in host_runs.
// who names the process in host_runs: its pid unless set (runners of one test process).
type recordingHost struct {
	conn *pgx.Conn
	who  int
}

func (h *recordingHost) id() int {
	if h.who != 0 {
		return h.who
	}
	return os.Getpid()
}

type recordingRun struct {
	h      *recordingHost
	plugin string
}

var recordMu sync.Mutex // one pgx.Conn is not safe for concurrent use

func (h *recordingHost) Start(ctx context.Context, _ *kit.Context, spec runner.HostSpec) (runner.HostRun, error) {
	recordMu.Lock()
	defer recordMu.Unlock()
	if _, err := h.conn.Exec(context.Background(), "INSERT INTO public.host_runs (plugin, pid) VALUES ($1, $2)", spec.PluginID, h.id()); err != nil {
		return nil, err
	}
	return &recordingRun{h: h, plugin: spec.PluginID}, nil
}

func (r *recordingRun) WaitingFor() []string                  { return nil }
func (r *recordingRun) Provides() []string                    { return nil }
func (r *recordingRun) Handlers(ctx context.Context) []string { return nil }
func (r *recordingRun) Invoke(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, runner.ErrMethodNotFound
}

func (r *recordingRun) Stop(context.Context) error {
	recordMu.Lock()
	defer recordMu.Unlock()
	_, err := r.h.conn.Exec(context.Background(), "UPDATE public.host_runs SET stopped = clock_timestamp() WHERE plugin = $1 AND pid = $2 AND stopped IS NULL", r.plugin, r.h.id())
	return err
}

// runnerChild is the child "runner TTL_MS [define]": a runner with RestartAtBoot on the
// store, whose host halves record themselves; with define, it defines and runs a Plugin
// of session s1 and prints "running ID"; then "ready", and it runs until killed.
func runnerChild(ctx context.Context, dsn string, ttlMS int, define bool) int {
	s, err := Open(ctx, dsn, &Options{LeaseTTL: time.Duration(ttlMS) * time.Millisecond})
	if err != nil {
		fmt.Println("error:", err)
		return 2
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		fmt.Println("error:", err)
		return 2
	}
	root := kit.New(nil)
	r, err := runner.New(root, &runner.Options{Store: s, RestartAtBoot: true, Host: &recordingHost{conn: conn}})
	if err != nil {
		fmt.Println("error:", err)
		return 2
	}
	if define {
		sctx := kit.WithSession(ctx, "s1")
		host := "return (ctx) => {}"
		d, err := r.Define(sctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: dynamic.TargetNew, IDPrefix: "clock"}, Name: "Clock", Purpose: "Ticks.", Code: dynamic.Code{Host: &host}})
		if err == nil {
			_, err = r.Run(sctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
		}
		if err != nil {
			fmt.Println("error:", err)
			return 2
		}
		fmt.Println("running", d.PluginID)
	}
	fmt.Println("ready")
	for {
		time.Sleep(time.Hour) // until killed
	}
}

// syncBuffer is a bytes.Buffer a child writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startRunner starts a runner child and waits until it says ready; it is killed when the
// test ends.
func startRunner(t testing.TB, dsn string, ttl time.Duration, define bool) (cmd *exec.Cmd, out, log *syncBuffer) {
	t.Helper()
	mode := fmt.Sprintf("runner %d", ttl.Milliseconds())
	if define {
		mode += " define"
	}
	cmd = childCmd(dsn, mode)
	out, log = &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kill(cmd) })
	eventually(t, "the runner child to start", func() bool {
		if strings.Contains(out.String(), "error:") {
			t.Fatalf("the runner child failed: %s\n%s", out, log)
		}
		return strings.Contains(out.String(), "ready")
	})
	return cmd, out, log
}

func kill(cmd *exec.Cmd) {
	if cmd.ProcessState == nil {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
}

// eventually polls cond until it holds, failing t after a minute (a bound for a broken
// build, not a timing assertion).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// A hostRun is a row of host_runs.
type hostRun struct {
	pid              int
	started, stopped time.Time // stopped is zero while it runs
}

func readHostRuns(t testing.TB, dsn, plugin string) []hostRun {
	t.Helper()
	conn, err := pgx.Connect(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(bg)
	rows, err := conn.Query(bg, "SELECT pid, started, coalesce(stopped, 'epoch') FROM public.host_runs WHERE plugin = $1 ORDER BY started", plugin)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (hostRun, error) {
		var h hostRun
		err := row.Scan(&h.pid, &h.started, &h.stopped)
		if h.stopped.Equal(time.Unix(0, 0)) {
			h.stopped = time.Time{}
		}
		return h, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func serverNow(t testing.TB, dsn string) time.Time {
	t.Helper()
	var now time.Time
	conn, err := pgx.Connect(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(bg)
	if err := conn.QueryRow(bg, "SELECT clock_timestamp()").Scan(&now); err != nil {
		t.Fatal(err)
	}
	return now
}

// takeover starts a runner child that runs a Plugin of session s1 and another beside
// it, SIGKILLs the first, and waits until the Plugin's host half runs in the second. It
// returns the Plugin, the second child (with its stdout and log), when the first was
// killed and when its lease expired, by the server's clock.
func takeover(t testing.TB, dsn string, ttl time.Duration) (plugin string, b *exec.Cmd, blog *syncBuffer, killed, expired time.Time) {
	t.Helper()
	execSQL(t, dsn, hostRuns)
	a, aout, _ := startRunner(t, dsn, ttl, true)
	plugin = strings.Fields(strings.SplitAfter(aout.String(), "running ")[1])[0]
	b, _, blog = startRunner(t, dsn, ttl, false)
	kill(a)
	killed = serverNow(t, dsn)
	conn, err := pgx.Connect(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(bg)
	if err := conn.QueryRow(bg, "SELECT expires FROM cordis.leases WHERE session = 's1'").Scan(&expired); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Plugin's host half to run in the other process", func() bool {
		for _, h := range readHostRuns(t, dsn, plugin) {
			if h.pid == b.Process.Pid {
				return true
			}
		}
		return false
	})
	return plugin, b, blog, killed, expired
}

// TestTakeover: two runner processes on one database; SIGKILL the one that runs a
// session's host half, and the other takes the session's lease once it expires and runs
// the half; steal that lease in SQL, and the second process stops the half and says so
// in its log. The halves' own records show that no two processes ever ran it at once.
func TestTakeover(t *testing.T) {
	dsn := pgtest.DSN(t)
	plugin, b, blog, killed, expired := takeover(t, dsn, time.Second)
	runs := readHostRuns(t, dsn, plugin)
	if len(runs) != 2 || runs[1].pid != b.Process.Pid {
		t.Fatalf("host runs %+v, want the first process's, then the second's (pid %d)", runs, b.Process.Pid)
	}
	if runs[1].started.Before(expired) {
		t.Fatalf("the second process started the half at %v, before the first one's lease expired at %v", runs[1].started, expired)
	}
	t.Logf("takeover: %v after the SIGKILL, %v after the lease expired", runs[1].started.Sub(killed), runs[1].started.Sub(expired))

	execSQL(t, dsn, "UPDATE cordis.leases SET owner = 'another process', expires = now() + interval '1 hour' WHERE session = 's1'")
	eventually(t, "the process that lost the lease to stop the half", func() bool {
		runs := readHostRuns(t, dsn, plugin)
		return !runs[len(runs)-1].stopped.IsZero()
	})
	eventually(t, "the log line of the lost lease", func() bool {
		return strings.Contains(blog.String(), "lost the lease of a session to another process") && strings.Contains(blog.String(), "session=s1")
	})
	// No two runs overlap: the first ended when its process was killed.
	runs = readHostRuns(t, dsn, plugin)
	end := killed
	if !runs[0].stopped.IsZero() {
		end = runs[0].stopped
	}
	if runs[1].started.Before(end) {
		t.Fatalf("the half ran in two processes at once: %+v (the first killed at %v)", runs, killed)
	}
	if got := queryInt(t, dsn, "SELECT count(*) FROM cordis.plugins WHERE running"); got != 1 {
		t.Fatalf("%d Plugins are recorded running, want 1: the lost lease's process leaves the record to the holder", got)
	}
}

// BenchmarkTakeover times, per iteration on a fresh database, the SIGKILL of the process
// that runs a session's host half until the half runs in the other process, beside its
// floor, the lease's expiry (LeaseTTL 2 s): takeover-ms from the kill, beyond-expiry-ms
// from the moment the lease expired, on the server's clock. Target: beyond-expiry ≤ 1 s.
func BenchmarkTakeover(b *testing.B) {
	const ttl = 2 * time.Second
	var total, beyond []time.Duration
	for b.Loop() {
		dsn := pgtest.DSN(b)
		plugin, bp, _, killed, expired := takeover(b, dsn, ttl)
		for _, h := range readHostRuns(b, dsn, plugin) {
			if h.pid == bp.Process.Pid {
				total, beyond = append(total, h.started.Sub(killed)), append(beyond, h.started.Sub(expired))
			}
		}
		kill(bp)
	}
	b.ReportMetric(float64(p50(total).Milliseconds()), "p50-takeover-ms")
	b.ReportMetric(float64(slices.Max(beyond).Milliseconds()), "max-beyond-expiry-ms")
	b.ReportMetric(float64(p50(beyond).Milliseconds()), "p50-beyond-expiry-ms")
	b.ReportMetric(float64(ttl.Milliseconds()), "lease-ttl-ms")
}

// TestSessionMoves: a session's client moves to another live process (the balancer moved
// it), which calls TakeSession: the first process stops the session's host half and
// gives up the lease, the second runs the half, and the halves' records show no overlap.
func TestSessionMoves(t *testing.T) {
	dsn := pgtest.DSN(t)
	execSQL(t, dsn, hostRuns)
	newRunner := func(who int) *runner.Runner {
		conn, err := pgx.Connect(bg, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(bg) })
		root := kit.New(nil)
		r, err := runner.New(root, &runner.Options{Store: open(t, dsn, &Options{LeaseTTL: time.Hour}), RestartAtBoot: true, Host: &recordingHost{conn: conn, who: who}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(bg, 30*time.Second)
			defer cancel()
			if err := errors.Join(r.Dispose(ctx), root.Fiber().Dispose(ctx)); err != nil {
				t.Error(err)
			}
		})
		return r
	}
	a, b := newRunner(1), newRunner(2)
	ctx := kit.WithSession(bg, "alice")
	host := "return (ctx) => {}"
	d, err := a.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: dynamic.TargetNew, IDPrefix: "clock"}, Name: "Clock", Purpose: "Ticks.", Code: dynamic.Code{Host: &host}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stop(ctx, dynamic.StopInput{PluginID: d.PluginID}); !errors.Is(err, runner.ErrSessionElsewhere) {
		t.Fatalf("a stop in the process that does not hold the session = %v, want ErrSessionElsewhere", err)
	}
	if err := b.TakeSession(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the session's half to run in the second runner", func() bool {
		runs := readHostRuns(t, dsn, d.PluginID)
		return len(runs) == 2 && runs[1].pid == 2
	})
	runs := readHostRuns(t, dsn, d.PluginID)
	if runs[0].pid != 1 || runs[0].stopped.IsZero() || runs[1].started.Before(runs[0].stopped) {
		t.Fatalf("host runs %+v: want the first runner's, stopped before the second's started", runs)
	}
	if _, err := b.Stop(ctx, dynamic.StopInput{PluginID: d.PluginID}); err != nil {
		t.Fatalf("a stop in the process that took the session: %v", err)
	}
}

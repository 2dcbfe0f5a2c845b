package pgstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/jackc/pgx/v5"
)

// The load test: runtime processes (this test binary run again as children) share one
// database, each a runner on a Store of its own, whose sessions call the runner's tools
// through an Invoker as an MCP server or an agent loop does.
//
//	CORDIS_PGLOAD=10s go test -run '^TestLoad$' -v ./runner/pgstore
//
// runs 1, 2, 4 and 8 processes of 8 sessions each for 10 s per step, on a cluster of its
// own with pg_stat_statements, and logs a table (CORDIS_PGLOAD_PROCS=1,8 chooses other
// steps). Without CORDIS_PGLOAD it runs 2 processes of 2 sessions for half a second
// and checks what they did (skipped with -short).
const (
	loadEnv      = "CORDIS_PGLOAD"       // the full run: how long each step lasts ("1" means 10s)
	loadChildEnv = "CORDIS_PGLOAD_CHILD" // "SESSIONS" in a child; the DSN is in loadChildEnv_DSN
)

// The test binary is a load child when loadChildEnv is set: before TestMain, so that it
// runs no tests.
func init() {
	if v := os.Getenv(loadChildEnv); v != "" {
		sessions, _ := strconv.Atoi(v)
		os.Exit(loadChild(os.Getenv(loadChildEnv+"_DSN"), sessions, os.Stdin, os.Stdout))
	}
}

// The mix: what each session of a load child does, in a loop, as fast as the answers
// come back (a closed loop: no think time): it defines a new Plugin, then a second
// Package of it (the two defines the tables count); every fourth Plugin it runs (a 2 KB
// host half, started in the sandbox, so the session holds a lease the Store renews);
// once it holds more than 8 Plugins it undefines the oldest; every eighth round it calls
// cordis_inspect_self {}.
const (
	loadKeep         = 8
	loadRunEvery     = 4
	loadInspectEvery = 8
)

// loadHost is a host half of about 2 KB, as the benchmarks' Packages are.
var loadHost = "// " + strings.Repeat("x", 2000) + "\nreturn (ctx) => {}"

// loadResult is what a load child reports once its window ends: the latency of each
// call, in microseconds, by tool.
type loadResult struct {
	Define, Run, Undefine, Inspect []int64
	Errors                         int
	FirstError                     string
	// Seconds is how long the window lasted in the child, CPUSeconds the CPU time the
	// child used meanwhile (user and system, every thread).
	Seconds, CPUSeconds float64
	// Held lists the sessions whose leases the child's Store held as the window ended,
	// Running its sessions that had a Plugin running then: they should be the same.
	Held, Running []string
}

// loadChild runs a runtime on dsn with sessions sessions: it prints "ready", waits for
// "go DURATION" on in, runs the mix for DURATION, prints its loadResult as one JSON line,
// waits for "stop" and shuts the runtime down.
func loadChild(dsn string, sessions int, in io.Reader, out io.Writer) int {
	ctx := context.Background()
	fail := func(err error) int {
		fmt.Fprintln(out, "error:", err)
		return 2
	}
	s, err := Open(ctx, dsn, nil)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	root := kit.New(&kit.Options{Logger: logger})
	r, err := runner.New(root, &runner.Options{Store: s, RestartAtBoot: true, Logger: logger})
	if err != nil {
		return fail(err)
	}
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		return fail(err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := errors.Join(inv.Close(dctx), r.Dispose(dctx), root.Fiber().Dispose(dctx)); err != nil {
			fmt.Fprintln(os.Stderr, "shutting down:", err)
		}
	}()
	fmt.Fprintln(out, "ready")
	stdin := bufio.NewReader(in)
	line, err := stdin.ReadString('\n')
	arg, ok := strings.CutPrefix(strings.TrimSpace(line), "go ")
	if err != nil || !ok {
		return fail(fmt.Errorf("want \"go DURATION\" on stdin, got %q (%v)", line, err))
	}
	d, err := time.ParseDuration(arg)
	if err != nil {
		return fail(err)
	}
	var (
		mu  sync.Mutex
		res loadResult
		wg  sync.WaitGroup
	)
	cpu0 := cpuSeconds()
	start := time.Now()
	end := start.Add(d)
	for i := range sessions {
		wg.Go(func() {
			l := sessionLoad{inv: inv, session: fmt.Sprintf("p%d-s%d", os.Getpid(), i)}
			l.loop(ctx, end)
			mu.Lock()
			defer mu.Unlock()
			res.Define = append(res.Define, l.res.Define...)
			res.Run = append(res.Run, l.res.Run...)
			res.Undefine = append(res.Undefine, l.res.Undefine...)
			res.Inspect = append(res.Inspect, l.res.Inspect...)
			if res.Errors == 0 && l.res.Errors > 0 {
				res.FirstError = l.res.FirstError
			}
			res.Errors += l.res.Errors
		})
	}
	wg.Wait()
	res.Seconds, res.CPUSeconds = time.Since(start).Seconds(), cpuSeconds()-cpu0
	s.leases.mu.Lock()
	for k := range s.leases.held {
		res.Held = append(res.Held, k)
	}
	s.leases.mu.Unlock()
	slices.Sort(res.Held)
	rows, err := s.pool.Query(ctx, "SELECT DISTINCT session FROM plugins WHERE running AND session LIKE $1 ORDER BY 1", fmt.Sprintf("p%d-%%", os.Getpid()))
	if err == nil {
		res.Running, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		return fail(err)
	}
	b, _ := json.Marshal(res)
	fmt.Fprintln(out, string(b))
	// Stay until every child has reported: a runtime that shuts down leaves its running
	// sessions to the others (Close gives up its leases), which would adopt them.
	if line, err := stdin.ReadString('\n'); err != nil || line != "stop\n" {
		return fail(fmt.Errorf("want \"stop\" on stdin, got %q (%v)", line, err))
	}
	return 0
}

// sessionLoad is one session of a load child.
type sessionLoad struct {
	inv     *invoke.Invoker
	session string
	kept    []string // the session's Plugins, oldest first
	res     loadResult
}

func (l *sessionLoad) loop(ctx context.Context, end time.Time) {
	for round := 0; time.Now().Before(end); round++ {
		var d struct{ PluginID, PackageID string }
		if !l.call(ctx, &l.res.Define, "cordis_define", map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": "load"},
			"name": "Load", "purpose": "A load test's.", "code": map[string]string{"host": loadHost}}, &d) {
			continue
		}
		l.kept = append(l.kept, d.PluginID)
		if !l.call(ctx, &l.res.Define, "cordis_define", map[string]any{"plugin": map[string]string{"kind": "existing", "pluginId": d.PluginID},
			"name": "Load", "purpose": "A load test's, again.", "code": map[string]string{"host": loadHost}}, &d) {
			continue
		}
		if round%loadRunEvery == 0 {
			var run struct{ Status string }
			if l.call(ctx, &l.res.Run, "cordis_run", map[string]any{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"}, &run) && run.Status != "running" {
				l.fail(fmt.Errorf("%s cordis_run %s: status %q, want running", l.session, d.PluginID, run.Status))
			}
		}
		if len(l.kept) > loadKeep {
			if l.call(ctx, &l.res.Undefine, "cordis_undefine", map[string]any{"pluginId": l.kept[0]}, nil) {
				l.kept = l.kept[1:]
			}
		}
		if round%loadInspectEvery == loadInspectEvery-1 {
			l.call(ctx, &l.res.Inspect, "cordis_inspect_self", map[string]any{}, nil)
		}
	}
}

// call calls tool with args for the session, records its latency in lat and decodes its
// answer into out; it reports whether the call succeeded.
func (l *sessionLoad) call(ctx context.Context, lat *[]int64, tool string, args map[string]any, out any) bool {
	raw, _ := json.Marshal(args)
	t0 := time.Now()
	ans, err := l.inv.InvokeSession(ctx, l.session, tool, raw)
	*lat = append(*lat, time.Since(t0).Microseconds())
	if err == nil && out != nil {
		err = json.Unmarshal(ans, out)
	}
	if err != nil {
		l.fail(fmt.Errorf("%s %s: %w", l.session, tool, err))
		return false
	}
	return true
}

// fail counts a call that failed, and keeps the first error.
func (l *sessionLoad) fail(err error) {
	if l.res.Errors == 0 {
		l.res.FirstError = err.Error()
	}
	l.res.Errors++
}

// loadStep is one row of the load test's table.
type loadStep struct {
	procs, sessions int
	res             loadResult // every child's calls, merged
	seconds         float64    // the longest child's window
	activity        activity   // the database's connections in the window
	clientCPU       float64    // the children's CPU time in their windows, in seconds
	serverCPU       float64    // the server's processes' CPU time meanwhile, in seconds
	loadavg         string     // /proc/loadavg as the step began
	stats           *stepStats // nil without pg_stat_statements
	// held and running are each child's Held and Running; logs its stderr (Info and
	// above).
	held, running [][]string
	logs          []string
}

func (st loadStep) definesPerSecond() float64 { return float64(len(st.res.Define)) / st.seconds }

// TestLoad runs the load steps (see loadEnv) and logs their table. Each step has a fresh
// database; its checks: no call failed, every process held the leases of its own
// sessions, each of which had a Plugin running, and of no other, and the database holds
// exactly the Plugins the sessions defined and did not undefine.
func TestLoad(t *testing.T) {
	full := os.Getenv(loadEnv)
	if full == "" && testing.Short() {
		t.Skipf("the load test is skipped with -short; %s=10s go test -run '^TestLoad$' -v ./runner/pgstore runs it in full", loadEnv)
	}
	steps, sessions, window := []int{2}, 2, 500*time.Millisecond
	newDB := func(t *testing.T) (string, *statsDB) { return pgtest.DSN(t), nil }
	if full != "" {
		steps, sessions, window = []int{1, 2, 4, 8}, 8, 10*time.Second
		if v := os.Getenv(loadEnv + "_PROCS"); v != "" {
			steps = nil
			for f := range strings.SplitSeq(v, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || n < 1 {
					t.Fatalf("%s_PROCS=%q: want process counts separated by commas, such as 1,2,4,8", loadEnv, v)
				}
				steps = append(steps, n)
			}
		}
		if full != "1" {
			d, err := time.ParseDuration(full)
			if err != nil {
				t.Fatalf("%s=%q: want a duration per step, such as 10s: %v", loadEnv, full, err)
			}
			window = d
		}
		c := statsCluster(t)
		newDB = func(t *testing.T) (string, *statsDB) { return c.database(t) }
	}
	var rows []loadStep
	for _, procs := range steps {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			dsn, stats := newDB(t)
			st := runLoadStep(t, dsn, stats, procs, sessions, window)
			if st.res.Errors > 0 {
				t.Errorf("%d calls failed; the first: %s", st.res.Errors, st.res.FirstError)
			}
			for i := range st.held {
				if !slices.Equal(st.held[i], st.running[i]) || len(st.running[i]) != sessions {
					t.Errorf("process %d held the leases of sessions %q as the window ended, and its sessions %q had a Plugin running: want the same %d (each session runs its first Plugin and keeps one running, and no process holds another's)",
						i, st.held[i], st.running[i], sessions)
				}
			}
			undefined := len(st.res.Undefine) // each succeeded: no call failed
			news := len(st.res.Define) / 2    // each round defines a new Plugin and a Package of it
			if got := queryInt(t, dsn, "SELECT count(*) FROM cordis.plugins"); got != int64(news-undefined) {
				t.Errorf("the database holds %d Plugins; the sessions defined %d new and undefined %d", got, news, undefined)
			}
			if t.Failed() {
				for i, l := range st.logs {
					t.Logf("process %d's log:\n%s", i, l)
				}
			}
			rows = append(rows, st)
		})
	}
	if len(rows) > 0 {
		t.Log("\n" + loadTable(rows))
	}
}

// runLoadStep starts procs load children on dsn, lets them run for window at once, and
// merges what they report.
func runLoadStep(t *testing.T, dsn string, stats *statsDB, procs, sessions int, window time.Duration) loadStep {
	open(t, dsn, nil).Close() // the schema, made once before the children race to open it
	// The children's connections are those opened from now on (that Store's may outlive
	// its Close for a while).
	since := serverNow(t, dsn)
	type child struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		lines chan string
		log   *syncBuffer
	}
	children := make([]child, 0, procs)
	var readers sync.WaitGroup
	defer func() { // a failed step's children are killed, so that their output ends
		for _, c := range children {
			kill(c.cmd)
		}
		readers.Wait()
	}()
	for range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), loadChildEnv+"="+strconv.Itoa(sessions), loadChildEnv+"_DSN="+dsn)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		c := child{cmd: cmd, stdin: stdin, lines: make(chan string, 16), log: &syncBuffer{}}
		cmd.Stderr = c.log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children = append(children, c)
		readers.Go(func() {
			defer close(c.lines)
			sc := bufio.NewScanner(stdout)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				c.lines <- sc.Text()
			}
		})
	}
	next := func(c child, what string) string {
		select {
		case line, ok := <-c.lines:
			if !ok || strings.HasPrefix(line, "error:") {
				t.Fatalf("a load child failed waiting for %s: %s\n%s", what, line, c.log)
			}
			return line
		case <-time.After(2*time.Minute + 2*window):
			t.Fatalf("waited %v for a load child's %s\n%s", 2*time.Minute+2*window, what, c.log)
		}
		return ""
	}
	for _, c := range children {
		if line := next(c, "ready"); line != "ready" {
			t.Fatalf("a load child said %q, want ready\n%s", line, c.log)
		}
	}
	if stats != nil {
		stats.reset(t)
	}
	st := loadStep{procs: procs, sessions: sessions}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		st.loadavg = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	server0 := cpuTicks(serverPIDs(t, dsn))
	for _, c := range children {
		if _, err := fmt.Fprintf(c.stdin, "go %s\n", window); err != nil {
			t.Fatal(err)
		}
	}
	st.activity = watchActivity(t, dsn, since, window)
	for _, c := range children {
		var r loadResult
		if line := next(c, "result"); json.Unmarshal([]byte(line), &r) != nil {
			t.Fatalf("a load child's result is not JSON: %q\n%s", line, c.log)
		}
		st.res.Define = append(st.res.Define, r.Define...)
		st.res.Run = append(st.res.Run, r.Run...)
		st.res.Undefine = append(st.res.Undefine, r.Undefine...)
		st.res.Inspect = append(st.res.Inspect, r.Inspect...)
		if st.res.Errors == 0 {
			st.res.FirstError = r.FirstError
		}
		st.res.Errors += r.Errors
		st.seconds = max(st.seconds, r.Seconds)
		st.clientCPU += r.CPUSeconds
		st.held, st.running = append(st.held, r.Held), append(st.running, r.Running)
	}
	var serverTicks int64
	for pid, n := range cpuTicks(serverPIDs(t, dsn)) {
		serverTicks += n - server0[pid] // a backend the window opened started from 0
	}
	st.serverCPU = float64(serverTicks) / clockTicks
	if stats != nil {
		st.stats = stats.read(t)
	}
	for _, c := range children {
		if _, err := io.WriteString(c.stdin, "stop\n"); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range children {
		c.stdin.Close()
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("a load child: %v\n%s", err, c.log)
		}
		st.logs = append(st.logs, c.log.String())
	}
	return st
}

// activity is what watchActivity saw of the database's client connections.
type activity struct {
	most int // connections, at most
	// active and locked are the mean number of connections running a statement, and
	// of those waiting for a lock (a row, the session's advisory lock, a NOTIFY's commit).
	active, locked float64
	// waits counts the lock waits seen, by pg_stat_activity's wait_event — transactionid
	// (a row another transaction holds), tuple (queued behind one), advisory (the
	// session's define lock), object (NOTIFY's commit), … — and the start of the waiting
	// statement.
	waits map[string]int
}

// watchActivity samples the client connections to dsn's database opened since since
// (without its own) every 100 ms for window.
func watchActivity(t *testing.T, dsn string, since time.Time, window time.Duration) activity {
	conn, err := pgx.Connect(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(bg)
	a := activity{waits: map[string]int{}}
	samples := 0
	for end := time.Now().Add(window); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		var n, active int
		var waits []string
		if err := conn.QueryRow(bg, `SELECT count(*), count(*) FILTER (WHERE state = 'active'), coalesce(array_agg(wait_event || ' in ' || left(query, 22)) FILTER (WHERE wait_event_type = 'Lock'), '{}')
			FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND backend_start >= $1`, since).Scan(&n, &active, &waits); err != nil {
			t.Fatal(err)
		}
		a.most = max(a.most, n)
		a.active += float64(active)
		a.locked += float64(len(waits))
		for _, w := range waits {
			a.waits[w]++
		}
		samples++
	}
	a.active /= float64(max(samples, 1))
	a.locked /= float64(max(samples, 1))
	return a
}

// loadTable formats the steps: defines per second and their scaling from the first
// step, a define's p50 and p99, the other calls, the connections (at most, and the
// mean running a statement and waiting for a lock), the CPU time per define of the
// runtime processes and of the server, and, with pg_stat_statements, the server's statement time
// per define (every statement of the mix, over the defines) and the mean time of a new
// Plugin's statement, which holds the id counters' rows (waits for them included).
func loadTable(rows []loadStep) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "procs\tsessions\tdefines/s\t×1 proc\tdefine p50 ms\tdefine p99 ms\truns/s\trun p99 ms\tundefines/s\tinspects/s\terrors\tconns\t"+
		"active\tlock-waiting\truntime CPU ms/define\tserver CPU ms/define\tserver stmt ms/define\tdefineNew ms\tloadavg before\t")
	for _, st := range rows {
		perS := func(n int) float64 { return float64(n) / st.seconds }
		perDefine := func(sec float64) float64 { return sec * 1e3 / float64(len(st.res.Define)) }
		stmt, defineNew := "-", "-"
		if s := st.stats; s != nil {
			stmt = fmt.Sprintf("%.3f", s.totalMS/float64(len(st.res.Define)))
			defineNew = fmt.Sprintf("%.3f", s.defineNewMS)
		}
		fmt.Fprintf(w, "%d\t%d\t%.0f\t%.2f\t%.1f\t%.1f\t%.0f\t%.1f\t%.0f\t%.0f\t%d\t%d\t%.1f\t%.1f\t%.2f\t%.2f\t%s\t%s\t%s\t\n",
			st.procs, st.procs*st.sessions, st.definesPerSecond(), st.definesPerSecond()/rows[0].definesPerSecond(),
			pct(st.res.Define, 50), pct(st.res.Define, 99), perS(len(st.res.Run)), pct(st.res.Run, 99), perS(len(st.res.Undefine)), perS(len(st.res.Inspect)),
			st.res.Errors, st.activity.most, st.activity.active, st.activity.locked, perDefine(st.clientCPU), perDefine(st.serverCPU), stmt, defineNew, st.loadavg)
	}
	w.Flush()
	for _, st := range rows {
		var kinds []string
		total := 0
		for _, n := range st.activity.waits {
			total += n
		}
		for k, n := range st.activity.waits {
			kinds = append(kinds, fmt.Sprintf("%s %.0f%%", k, 100*float64(n)/float64(total)))
		}
		slices.Sort(kinds)
		fmt.Fprintf(&b, "procs=%d: lock waits by kind and statement: %s\n", st.procs, strings.Join(kinds, ", "))
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(&b, "loadavg at the end: %s", load)
	}
	return b.String()
}

// clockTicks is the unit of /proc/PID/stat's CPU times on Linux (USER_HZ).
const clockTicks = 100

// cpuSeconds is the CPU time (user and system) this process used so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// serverPIDs are the processes of the server dsn names, now: its postmaster (the first line of
// data/postmaster.pid in the cluster's directory, internal/pgtest's layout) and the
// postmaster's children — every connection's backend and the background workers.
func serverPIDs(t *testing.T, dsn string) []int {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(cfg.Host, "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	postmaster, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	pids := []int{postmaster}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStat(pid); len(f) > 1 && f[1] == strconv.Itoa(postmaster) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat is the fields of /proc/PID/stat after the command's name: the state, the
// parent's pid, … (field 3 of proc(5) is procStat[0]).
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// cpuTicks is the user and system CPU time of each of pids (proc(5)'s fields 14 and
// 15), in clockTicks; a process that ended is left out.
func cpuTicks(pids []int) map[int]int64 {
	ticks := map[int]int64{}
	for _, pid := range pids {
		if f := procStat(pid); len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			ticks[pid] = u + s
		}
	}
	return ticks
}

// pct is the p-th percentile of µs, in milliseconds.
func pct(µs []int64, p int) float64 {
	if len(µs) == 0 {
		return 0
	}
	s := slices.Clone(µs)
	slices.Sort(s)
	return float64(s[min(len(s)-1, len(s)*p/100)]) / 1e3
}

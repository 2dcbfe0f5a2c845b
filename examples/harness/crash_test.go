package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
)

// crashRounds is how many times TestMCPCrashTakeover kills the process that runs alice's
// Plugin: go test -run TestMCPCrashTakeover ./examples/harness -crash-rounds 20.
var crashRounds = flag.Int("crash-rounds", 3, "TestMCPCrashTakeover: the SIGKILL rounds of each variant")

const (
	crashLease = 2 * time.Second
	// crashSlack is how long past the lease a takeover may take on a loaded machine; the
	// times themselves are logged, and docs/PERFORMANCE.md holds the measured ones.
	crashSlack = 5 * time.Second
	tickEvery  = 100 * time.Millisecond
)

// tickerDefine is the cordis_define of a Plugin whose host half logs "crashtest-tick WHO
// MILLIS" every tickEvery through its console, which is its process's log on stderr: the
// side effect that says, from outside, which process runs it and when.
func tickerDefine(who string) map[string]any {
	return map[string]any{
		"plugin": map[string]any{"kind": "new", "idPrefix": "tick"}, "name": "Ticker", "purpose": "Ticks in the log.",
		"code": map[string]any{"host": fmt.Sprintf(`return { name: 'ticker', inject: ['timer'], apply(ctx) {
	ctx.setInterval(() => console.log('crashtest-tick %s ' + Date.now()), %d)
} }`, who, tickEvery.Milliseconds())}}
}

var tickLine = regexp.MustCompile(`crashtest-tick (\w+) (\d+)`)

// crashProc is one example process, mcp -http on the shared database, run as a child.
type crashProc struct {
	n    int // the test's number for it, in the order started
	cmd  *exec.Cmd
	url  string
	done chan struct{} // closed once its stderr is read to the end and it was waited for

	mu     sync.Mutex
	ticks  map[string][]time.Time // by session, the times its host halves logged
	lines  []string               // the last lines of its stderr, for a failure's message
	killed time.Time
}

// startCrashProc starts process n and waits for its MCP endpoint's line; t's cleanup
// kills it if it still runs and waits for it and its stderr's reader.
func startCrashProc(t *testing.T, n int, dsn, tokens string) *crashProc {
	t.Helper()
	args := []string{"mcp", "-http", "127.0.0.1:0", "-store-dsn", dsn, "-store-lease", crashLease.String(),
		"-session-tokens", tokens, "-dir", t.TempDir(), "-state", t.TempDir()}
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHarnessChild$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1", mcpTokenEnv+"=", storeDSNEnv+"=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &crashProc{n: n, cmd: cmd, done: make(chan struct{}), ticks: map[string][]time.Time{}}
	url := make(chan string, 1)
	go func() {
		defer close(p.done)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			p.read(lines.Text(), url)
		}
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	select {
	case p.url = <-url:
	case <-p.done:
		t.Fatalf("process %d ended before its mcp line:\n%s", n, p.tail())
	case <-time.After(time.Minute):
		t.Fatalf("process %d: no mcp line in a minute:\n%s", n, p.tail())
	}
	return p
}

// read takes one line of the process's stderr: its endpoint, or a tick.
func (p *crashProc) read(line string, url chan<- string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, line)
	if len(p.lines) > 40 {
		p.lines = p.lines[1:]
	}
	if m := mcpLine.FindStringSubmatch(line + "\n"); m != nil {
		select {
		case url <- m[1]:
		default:
		}
	}
	if m := tickLine.FindStringSubmatch(line); m != nil {
		ms, _ := strconv.ParseInt(m[2], 10, 64)
		p.ticks[m[1]] = append(p.ticks[m[1]], time.UnixMilli(ms))
	}
}

func (p *crashProc) tail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// ticksOf is a copy of the times who's host half ticked in this process.
func (p *crashProc) ticksOf(who string) []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.ticks[who])
}

// tickingSince reports the first tick of who in this process at or after since.
func (p *crashProc) tickingSince(who string, since time.Time) (time.Time, bool) {
	for _, at := range p.ticksOf(who) {
		if !at.Before(since) {
			return at, true
		}
	}
	return time.Time{}, false
}

// tickingNow reports whether who's host half ticked in this process in the last three
// intervals.
func (p *crashProc) tickingNow(who string) bool {
	_, ok := p.tickingSince(who, time.Now().Add(-3*tickEvery))
	return ok
}

// kill SIGKILLs the process and waits for it and the end of its stderr.
func (p *crashProc) kill(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	p.killed = time.Now()
	p.mu.Unlock()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
}

// TestMCPCrashTakeover: real example processes (mcp -http -store-dsn, a 2 s lease) on
// one database; alice's Plugin and bob's run. Each round SIGKILLs the process whose log
// shows alice's host half ticking, reconnects her client to another live process, waits
// for the ticks to appear in a live process and starts a replacement. Each round the
// Plugin runs again in exactly one live process within the lease and a bound, the ticks
// of two processes never overlap by more than a tick, and bob sees his Plugin and never
// hers. Three processes and two; -crash-rounds N sets the rounds (3). Skipped with -short.
func TestMCPCrashTakeover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes and kills them; run without -short")
	}
	for _, n := range []int{3, 2} {
		t.Run(fmt.Sprintf("%d processes", n), func(t *testing.T) { crashTakeover(t, n, *crashRounds) })
	}
}

// crashTakeover runs the rounds of TestMCPCrashTakeover with n processes up.
func crashTakeover(t *testing.T, n, rounds int) {
	dsn, tokens := pgtest.DSN(t), sessionTokens(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rounds+2)*time.Minute)
	defer cancel()
	var all, live []*crashProc
	start := func() *crashProc {
		p := startCrashProc(t, len(all)+1, dsn, tokens)
		all, live = append(all, p), append(live, p)
		return p
	}
	for range n {
		start()
	}

	// alice on the first process, bob on the last: each defines and runs a ticker.
	alice := connectHTTP(t, ctx, live[0].url, aliceTok, "laptop")
	aliceID := defineAndRun(t, ctx, alice, "alice")
	bob := connectHTTP(t, ctx, live[n-1].url, bobTok, "laptop")
	bobID := defineAndRun(t, ctx, bob, "bob")
	defer func() { alice.Close(); bob.Close() }()
	bobOn := live[n-1]
	owner := waitTicking(t, live, "alice", time.Time{}, time.Minute)
	waitTicking(t, live, "bob", time.Time{}, time.Minute)

	takeovers := 0
	var times []time.Duration
	for round := 1; round <= rounds; round++ {
		// It runs a while where it is, where a second run elsewhere would show.
		time.Sleep(10 * tickEvery)
		owner.kill(t)
		killed := owner.killed
		live = slices.DeleteFunc(live, func(p *crashProc) bool { return p == owner })
		if last := owner.ticksOf("alice"); len(last) > 0 && last[len(last)-1].After(killed.Add(tickEvery)) {
			t.Errorf("round %d: process %d ticked at %v, after its SIGKILL at %v", round, owner.n, last[len(last)-1], killed)
		}
		// Her client reconnects to another live process, as a balancer would send it.
		alice.Close()
		alice = connectHTTP(t, ctx, live[round%len(live)].url, aliceTok, "laptop")
		if self := alice.call(t, ctx, "cordis_inspect_self", map[string]any{}); !strings.Contains(self, `"pluginId":"`+aliceID+`"`) || strings.Contains(self, bobID) {
			t.Errorf("round %d: alice on process %d lists %s; want her %s and not bob's %s", round, live[round%len(live)].n, self, aliceID, bobID)
		}
		next := waitTicking(t, live, "alice", killed, crashLease+time.Minute)
		first, _ := next.tickingSince("alice", killed)
		took := first.Sub(killed)
		takeovers++
		times = append(times, took.Round(time.Millisecond))
		t.Logf("round %d: SIGKILL of process %d (pid %d); alice's Plugin ticks in process %d (pid %d) %v later",
			round, owner.n, owner.cmd.Process.Pid, next.n, next.cmd.Process.Pid, took.Round(time.Millisecond))
		if took > crashLease+crashSlack {
			t.Errorf("round %d: the takeover took %v, over the lease %v and %v", round, took, crashLease, crashSlack)
		}
		// Exactly one live process runs it a while later. Her client's next request may
		// move it to the process it reached, if another adopted it first: a handover, not
		// a second run, which checkNoOverlap tells apart.
		time.Sleep(10 * tickEvery)
		var ticking []int
		for _, p := range live {
			if p.tickingNow("alice") {
				ticking, owner = append(ticking, p.n), p
			}
		}
		if len(ticking) != 1 {
			t.Fatalf("round %d: alice's Plugin ticks now in processes %v, want exactly one", round, ticking)
		}
		if owner != next {
			t.Logf("round %d: her client's request moved it to process %d (pid %d)", round, owner.n, owner.cmd.Process.Pid)
		}
		if !slices.Contains(live, bobOn) {
			bob.Close()
			bobOn = live[0]
			bob = connectHTTP(t, ctx, bobOn.url, bobTok, "laptop")
		}
		if self := bob.call(t, ctx, "cordis_inspect_self", map[string]any{}); !strings.Contains(self, `"pluginId":"`+bobID+`"`) || strings.Contains(self, aliceID) {
			t.Errorf("round %d: bob lists %s; want his %s and never alice's %s", round, self, bobID, aliceID)
		}
		start()
	}
	// Bob's Plugin still runs, and alice's is listed running where she is.
	waitTicking(t, live, "bob", time.Now(), crashLease+time.Minute)
	time.Sleep(10 * tickEvery)
	if self := alice.call(t, ctx, "cordis_inspect_self", map[string]any{}); !strings.Contains(self, `"state":"running"`) {
		t.Errorf("alice after %d takeovers lists %s; want her %s running", takeovers, self, aliceID)
	}
	for _, who := range []string{"alice", "bob"} {
		checkNoOverlap(t, all, who)
	}
	t.Logf("%d processes: %d crashes, %d takeovers, SIGKILL to the first tick elsewhere: %v (lease %v)", n, rounds, takeovers, times, crashLease)
}

// defineAndRun defines who's ticker and runs it; it returns its Plugin id.
func defineAndRun(t *testing.T, ctx context.Context, c *httpClient, who string) string {
	t.Helper()
	var def struct {
		PluginID  string `json:"pluginId"`
		PackageID string `json:"packageId"`
	}
	if err := json.Unmarshal([]byte(c.call(t, ctx, "cordis_define", tickerDefine(who))), &def); err != nil || def.PluginID == "" {
		t.Fatalf("%s's define: %v %+v", who, err, def)
	}
	if run := c.call(t, ctx, "cordis_run", map[string]any{"pluginId": def.PluginID, "packageId": def.PackageID, "mode": "run"}); !strings.Contains(run, `"status":"running"`) {
		t.Fatalf("%s's run: %s", who, run)
	}
	return def.PluginID
}

// waitTicking waits up to limit for who's host half to tick, at or after since, in one of
// procs, and returns that process.
func waitTicking(t *testing.T, procs []*crashProc, who string, since time.Time, limit time.Duration) *crashProc {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		for _, p := range procs {
			if _, ok := p.tickingSince(who, since); ok {
				return p
			}
		}
		time.Sleep(tickEvery / 4)
	}
	for _, p := range procs {
		t.Logf("process %d:\n%s", p.n, p.tail())
	}
	t.Fatalf("%s's Plugin ticks in none of %d live processes %v after %v", who, len(procs), limit, since)
	return nil
}

// checkNoOverlap: who's host half never ran in two processes at once. A process's ticks
// fall into runs, a run ending where the next tick is more than three intervals later (it
// stopped, or was paused); the runs of two processes overlap by no more than a tick.
func checkNoOverlap(t *testing.T, procs []*crashProc, who string) {
	t.Helper()
	type run struct {
		n           int
		first, last time.Time
	}
	var runs []run
	for _, p := range procs {
		ticks := p.ticksOf(who)
		for i := 0; i < len(ticks); {
			j := i
			for j+1 < len(ticks) && ticks[j+1].Sub(ticks[j]) <= 3*tickEvery {
				j++
			}
			runs = append(runs, run{p.n, ticks[i], ticks[j]})
			i = j + 1
		}
	}
	for i, a := range runs {
		for _, b := range runs[i+1:] {
			if a.n == b.n {
				continue
			}
			if overlap := earliest(a.last, b.last).Sub(latest(a.first, b.first)); overlap > tickEvery {
				t.Errorf("%s's Plugin ran in processes %d (%v–%v) and %d (%v–%v) at once for %v",
					who, a.n, a.first.Format(time.StampMilli), a.last.Format(time.StampMilli), b.n, b.first.Format(time.StampMilli), b.last.Format(time.StampMilli), overlap)
			}
		}
	}
	if len(runs) == 0 {
		t.Errorf("%s's Plugin never ticked", who)
	}
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

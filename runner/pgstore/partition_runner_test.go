package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/runner"
)

func newLiveSet() *liveSet { return &liveSet{by: map[string]map[string]bool{}} }

// runners returns the runners that run plugin's host half now.
func (l *liveSet) runners(plugin string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for w := range l.by[plugin] {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// A toolCall is one call of a runner's tool during the burst, as the model would make it.
type toolCall struct {
	proc, session, tool string
	took                time.Duration
	err                 string
}

// burstProc is one runner of the partition test with the Invoker its tools are called
// through.
type burstProc struct {
	name  string
	r     *runner.Runner
	inv   *invoke.Invoker
	heard chan runner.DefinitionChangedEvent
}

// TestRunnersSurviveServerStop: two runners on one database (leases of 2 s, store calls
// bounded by 3 s), four sessions calling cordis_define through the runners' tools as fast
// as they can, running every fourth Plugin and stopping every other one they ran; the
// server is stopped as a crash would stop it (pg_ctl stop -m immediate) mid-burst and
// started again. Every define a tool acknowledged is there afterwards, whole; every call
// during the outage failed with an error that names the store and says it reconnects by
// itself, none took longer than its store calls' bound, and nothing panicked; and the
// runners serve again without a restart: the tools succeed, each listening connection
// came back (the other runner's define is told, and a resync told the sessions to read
// again), the sessions' leases are taken again, and every Plugin recorded running runs in
// exactly one of the two runners (and no Plugin ever ran in both at once).
func TestRunnersSurviveServerStop(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server stop and restart take seconds")
	}
	c := pgtest.New(t)
	_, dsn, err := c.CreateDatabase(bg)
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 3 * time.Second
	live := newLiveSet()
	var procs []*burstProc
	for _, name := range []string{"a", "b"} {
		root, r, _ := newRelayRunner(t, dsn, &Options{LeaseTTL: 2 * time.Second, Timeout: timeout},
			runner.Options{RestartAtBoot: true, Host: &memHost{who: name, live: live}})
		inv, err := invoke.NewInvoker(root)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = inv.Close(bg) })
		procs = append(procs, &burstProc{name: name, r: r, inv: inv, heard: relayed(t, root)})
	}

	var (
		mu        sync.Mutex
		acked     []string // Plugins whose define a tool acknowledged
		calls     []toolCall
		restarted bool
		afterOK   = map[string]int{} // defines acknowledged per session since the restart
		wg        sync.WaitGroup
	)
	ctx, stop := context.WithCancel(bg)
	defer func() { stop(); wg.Wait() }() // on a failure below
	call := func(p *burstProc, session, tool string, args any) json.RawMessage {
		raw, _ := json.Marshal(args)
		start := time.Now()
		out, err := p.inv.InvokeSession(bg, session, tool, raw)
		c := toolCall{proc: p.name, session: session, tool: tool, took: time.Since(start)}
		if err != nil {
			c.err = err.Error()
		}
		mu.Lock()
		calls = append(calls, c)
		mu.Unlock()
		if err != nil {
			time.Sleep(5 * time.Millisecond)
			return nil
		}
		return out
	}
	for i, p := range []*burstProc{procs[0], procs[0], procs[1], procs[1]} {
		session := fmt.Sprintf("s%d", i)
		wg.Go(func() {
			var ran []string
			for n := 0; ctx.Err() == nil; n++ {
				out := call(p, session, "cordis_define", map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": "burst"},
					"name": "Burst", "purpose": "A partition test.", "code": map[string]string{"host": "return (ctx) => {}"}})
				if out == nil {
					continue
				}
				var d struct{ PluginID, PackageID string }
				if err := json.Unmarshal(out, &d); err != nil || d.PluginID == "" {
					t.Errorf("cordis_define answered %s", out)
					return
				}
				mu.Lock()
				acked = append(acked, d.PluginID)
				if restarted {
					afterOK[session]++
				}
				done := afterOK[session] >= 10
				mu.Unlock()
				if done {
					return
				}
				if n%4 == 0 && call(p, session, "cordis_run", map[string]string{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"}) != nil {
					ran = append(ran, d.PluginID)
				}
				if n%8 == 4 && len(ran) > 0 {
					call(p, session, "cordis_stop", map[string]string{"pluginId": ran[0]})
					ran = ran[1:]
				}
			}
		})
	}
	count := func(cond func() bool) func() bool {
		return func() bool { mu.Lock(); defer mu.Unlock(); return cond() }
	}
	eventually(t, "the burst to be under way", count(func() bool { return len(acked) >= 60 }))
	mu.Lock()
	stopped := len(calls)
	mu.Unlock()
	if err := c.StopImmediate(bg); err != nil {
		t.Fatal(err)
	}
	downAt := time.Now()
	failed := func() int {
		n := 0
		for _, c := range calls[stopped:] {
			if c.err != "" {
				n++
			}
		}
		return n
	}
	eventually(t, "calls to fail while the server is down", count(func() bool { return failed() >= 8 }))
	time.Sleep(3 * time.Second) // past the leases' life: they are lost, and expire on the server
	for _, p := range procs {
		for len(p.heard) > 0 {
			<-p.heard
		}
	}
	if err := c.Start(bg); err != nil {
		t.Fatal(err)
	}
	down := time.Since(downAt)
	mu.Lock()
	restarted, upAt := true, len(calls)
	mu.Unlock()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		stop()
		<-done
		t.Fatal("the runners did not serve every session again within 2 minutes of the server's restart")
	}

	// Every call during the outage failed with a clear error, within its bound.
	var outage []toolCall
	var longest time.Duration
	for _, c := range calls[stopped:upAt] {
		longest = max(longest, c.took)
		if c.err == "" {
			continue
		}
		outage = append(outage, c)
		if !strings.Contains(c.err, Redact(dsn)) || !strings.Contains(c.err, "reconnects") {
			t.Errorf("%s through runner %s during the outage failed with %q: want the store's error, naming %s and saying it reconnects", c.tool, c.proc, c.err, Redact(dsn))
		}
	}
	// A tool call makes a few store calls, each bounded by Options.Timeout.
	if bound := 4 * timeout; longest > bound {
		t.Errorf("a tool call during the outage took %v, past %v (Options.Timeout %v for each of its store calls)", longest, bound, timeout)
	}

	// Every acknowledged define is there, whole, and no id was acknowledged twice.
	ps, err := procs[0].r.Store().Plugins(bg, "")
	if err != nil {
		t.Fatal(err)
	}
	checkAcked(t, ps, acked)

	// The listening connections came back: each runner caught up (a resync told every
	// session to read again) and hears the other's changes.
	for i, p := range procs {
		other := procs[1-i]
		eventually(t, "runner "+p.name+" to resync after the restart", func() bool {
			return len(p.heard) > 0 && (<-p.heard).PluginID == ""
		})
		fresh := "fresh-" + p.name
		var d struct{ PluginID string }
		if err := json.Unmarshal(call(other, fresh, "cordis_define", map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": "fresh"},
			"name": "Fresh", "purpose": "After the outage.", "code": map[string]string{"host": "return (ctx) => {}"}}), &d); err != nil {
			t.Fatalf("a define through runner %s after the restart: %v", other.name, err)
		}
		eventually(t, "runner "+p.name+" to hear runner "+other.name+"'s define", func() bool {
			if len(p.heard) == 0 {
				return false
			}
			ev := <-p.heard
			return ev.Session == fresh && ev.PluginID == d.PluginID && ev.Change == runner.Defined
		})
	}

	// Every Plugin recorded running runs in exactly one runner, the session's lease holder.
	var running []string
	var problems []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		ps, err := procs[0].r.Store().Plugins(bg, "")
		if err != nil {
			t.Fatal(err)
		}
		running, problems = running[:0], problems[:0]
		for _, p := range ps {
			in := live.runners(p.ID)
			if p.Running {
				running = append(running, p.ID)
			}
			if p.Running && len(in) != 1 || !p.Running && len(in) != 0 {
				problems = append(problems, fmt.Sprintf("%s of %s recorded running %v (latest %+v) runs in %v", p.ID, p.Session, p.Running, p.Latest, in))
			}
		}
		if len(problems) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the restart, not every Plugin recorded running runs in exactly one runner:\n%s", strings.Join(problems, "\n"))
		}
	}
	sessions := queryInt(t, dsn, "SELECT count(DISTINCT session) FROM cordis.plugins WHERE running")
	if held := queryInt(t, dsn, "SELECT count(*) FROM cordis.leases l WHERE expires > now() AND EXISTS (SELECT FROM cordis.plugins p WHERE p.session = l.session AND p.running)"); held != sessions {
		t.Fatalf("%d sessions have Plugins running and %d of them a live lease", sessions, held)
	}
	live.mu.Lock()
	twice := live.twice
	live.mu.Unlock()
	if len(twice) > 0 {
		t.Fatalf("Plugins ran in both runners at once: %v", twice)
	}
	t.Logf("%d tool calls, %d acknowledged defines; server down %v, %d calls failed meanwhile (the longest call %v; the first error: %s); after the restart %d Plugins run, each in one runner, %d sessions' leases taken again",
		len(calls), len(acked), down.Round(time.Millisecond), len(outage), longest.Round(time.Millisecond), outage[0].err, len(running), sessions)
}

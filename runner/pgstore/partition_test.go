package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/runner"
)

// TestServerStoppedMidBurst stops the server as a crash would (pg_ctl stop -m immediate)
// while four goroutines define as fast as they can, and starts it again. The same Store
// carries on without being reopened; every define it acknowledged is there, each Plugin
// whole (its one Package); every define that failed said so with a store error that names
// the DSN without a password and says whether it may have been recorded; and no id was
// given twice.
func TestServerStoppedMidBurst(t *testing.T) {
	c := pgtest.New(t)
	_, dsn, err := c.CreateDatabase(bg)
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, dsn, nil)
	var (
		mu       sync.Mutex
		acked    []string
		failures []error
		wg       sync.WaitGroup
	)
	ctx, stop := context.WithCancel(bg)
	defer stop()
	afterRestart := make(chan struct{})
	for w := range 4 {
		wg.Go(func() {
			okAfter := 0
			for ctx.Err() == nil {
				p, _, err := s.Define(bg, runner.Definition{Session: fmt.Sprint("s", w), Prefix: "burst", Name: "Burst", Purpose: "A partition test.", Host: "return (ctx) => {}"})
				mu.Lock()
				if err != nil {
					failures = append(failures, err)
				} else {
					acked = append(acked, p.ID)
				}
				mu.Unlock()
				if err != nil {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				select {
				case <-afterRestart:
					if okAfter++; okAfter == 20 {
						return
					}
				default:
				}
			}
		})
	}
	defer func() { stop(); wg.Wait() }() // on a failure below
	waitFor(t, &mu, func() bool { return len(acked) >= 200 })
	if err := c.StopImmediate(bg); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &mu, func() bool { return len(failures) >= 8 })
	if err := c.Start(bg); err != nil {
		t.Fatal(err)
	}
	close(afterRestart)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		stop()
		<-done
		t.Fatalf("the Store did not recover within 2 minutes of the server's restart; the last failure: %v", failures[len(failures)-1])
	}
	for _, err := range failures {
		var se *Error
		if !errors.As(err, &se) || !se.Write || !strings.Contains(err.Error(), "recording a define in "+Redact(dsn)) {
			t.Fatalf("a define during the outage failed with %v (%T), want a *pgstore.Error recording a define in %s", err, err, Redact(dsn))
		}
	}
	ps, err := s.Plugins(bg, "")
	if err != nil {
		t.Fatal(err)
	}
	checkAcked(t, ps, acked)
	t.Logf("%d defines acknowledged, %d failed while the server was down (the first: %v), %d stored", len(acked), len(failures), failures[0], len(ps))
}

// checkAcked fails t unless every Plugin in ps is whole (one Package, the burst's host
// half) and every id in acked was acknowledged once and is in ps: what a burst of
// defines across a server stop must leave behind.
func checkAcked(t *testing.T, ps []runner.Plugin, acked []string) {
	t.Helper()
	stored := map[string]bool{}
	for _, p := range ps {
		if len(p.Packages) != 1 || p.Packages[0].Host != "return (ctx) => {}" {
			t.Fatalf("%s is half-written: %+v", p.ID, p)
		}
		stored[p.ID] = true
	}
	seen := map[string]bool{}
	for _, id := range acked {
		if seen[id] {
			t.Fatalf("%s acknowledged twice", id)
		}
		seen[id] = true
		if !stored[id] {
			t.Fatalf("%s was acknowledged but is missing after the server came back", id)
		}
	}
}

// waitFor polls cond (under mu) until it holds, failing t after a minute.
func waitFor(t *testing.T, mu *sync.Mutex, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		ok := cond()
		mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the burst did not get there within a minute")
		}
	}
}

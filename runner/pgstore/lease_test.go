package pgstore

import (
	"errors"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
	"github.com/google/go-cmp/cmp"
)

func mustAcquire(t *testing.T, s *Store, session string, want bool) {
	t.Helper()
	got, err := s.AcquireSession(bg, session)
	if err != nil || got != want {
		t.Fatalf("AcquireSession(%q) = %v, %v; want %v", session, got, err, want)
	}
}

// TestLeaseFencesAnotherStore: while one Store holds a session's lease, another Store can
// neither take it, nor start, stop, change or remove the session's Plugins; a session
// whose lease is held is no orphan; definitions stay shared.
func TestLeaseFencesAnotherStore(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := open(t, dsn, &Options{LeaseTTL: time.Hour}), open(t, dsn, &Options{LeaseTTL: time.Hour})
	p, _ := storetest.MustDefine(t, a, storetest.Def("s1", "clock", ""))
	mustAcquire(t, a, "s1", true)
	mustAcquire(t, a, "s1", true) // a renewal
	mustAcquire(t, b, "s1", false)
	if _, err := a.Update(bg, p.ID, runner.Change{Running: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"start":  func() error { _, err := b.Update(bg, p.ID, runner.Change{Running: ptr(true)}); return err }(),
		"stop":   func() error { _, err := b.Update(bg, p.ID, runner.Change{Running: ptr(false)}); return err }(),
		"grant":  func() error { _, err := b.Update(bg, p.ID, runner.Change{Future: ptr(true)}); return err }(),
		"remove": b.Remove(bg, p.ID),
	} {
		if !errors.Is(err, runner.ErrSessionElsewhere) {
			t.Errorf("%s from the other Store = %v, want ErrSessionElsewhere", name, err)
		}
	}
	got, err := b.Plugin(bg, p.ID)
	if err != nil || !got.Running || got.Grants.Future {
		t.Fatalf("after the refused changes the Plugin is %+v, %v; want it running, no future grant", got, err)
	}
	// Another session, and defines, are the other Store's to make.
	q, _ := storetest.MustDefine(t, b, storetest.Def("s2", "clock", ""))
	storetest.MustDefine(t, b, storetest.Def("s1", "", p.ID))
	if _, err := b.Update(bg, q.ID, runner.Change{Running: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if got := queryInt(t, dsn, "SELECT count(*) FROM cordis.leases WHERE session = 's2'"); got != 1 {
		t.Fatalf("a run's start took %d leases of its session, want 1", got)
	}
	if got, err := a.OrphanedSessions(bg); err != nil || len(got) != 0 {
		t.Fatalf("OrphanedSessions = %q, %v; want none (each running session is held)", got, err)
	}
}

// TestLeaseTakeover: a lease that expired (its Store's process died) is another Store's
// to take, with the fencing token bumped; the session is an orphan until then, and
// closing a Store gives its leases up at once.
func TestLeaseTakeover(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := open(t, dsn, &Options{LeaseTTL: time.Hour}), open(t, dsn, &Options{LeaseTTL: time.Hour})
	p, _ := storetest.MustDefine(t, a, storetest.Def("s1", "clock", ""))
	if _, err := a.Update(bg, p.ID, runner.Change{Running: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	execSQL(t, dsn, "UPDATE cordis.leases SET expires = now() - interval '1 second'")
	orphans, err := b.OrphanedSessions(bg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"s1"}, orphans); diff != "" {
		t.Fatalf("OrphanedSessions (-want +got):\n%s", diff)
	}
	mustAcquire(t, b, "s1", true)
	mustAcquire(t, a, "s1", false)
	if got := queryInt(t, dsn, "SELECT fence FROM cordis.leases WHERE session = 's1'"); got != 2 {
		t.Fatalf("the fencing token after one takeover is %d, want 2", got)
	}
	if _, err := a.Update(bg, p.ID, runner.Change{Running: ptr(false)}); !errors.Is(err, runner.ErrSessionElsewhere) {
		t.Fatalf("the old holder's stop = %v, want ErrSessionElsewhere", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := queryInt(t, dsn, "SELECT count(*) FROM cordis.leases"); got != 0 {
		t.Fatalf("a closed Store left %d leases", got)
	}
	mustAcquire(t, a, "s1", true)
}

// TestLeaseLost: a Store whose lease was taken from it (here stolen in SQL) says so to
// its watchers at its next renewal, and its changes of the session are refused.
func TestLeaseLost(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := open(t, dsn, &Options{LeaseTTL: 300 * time.Millisecond})
	p, _ := storetest.MustDefine(t, a, storetest.Def("s1", "clock", ""))
	if _, err := a.Update(bg, p.ID, runner.Change{Running: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	lost := make(chan string, 4)
	cancel := a.OnLeaseLost(func(s string) { lost <- s })
	defer cancel()
	execSQL(t, dsn, "UPDATE cordis.leases SET owner = 'another process', expires = now() + interval '1 hour'")
	select {
	case s := <-lost:
		if s != "s1" {
			t.Fatalf("lost session %q, want s1", s)
		}
	case <-time.After(time.Minute):
		t.Fatal("the Store never reported the lease it lost")
	}
	if _, err := a.Update(bg, p.ID, runner.Change{Running: ptr(true)}); !errors.Is(err, runner.ErrSessionElsewhere) {
		t.Fatalf("a start after the lease was lost = %v, want ErrSessionElsewhere", err)
	}
}

// TestIdleLeaseGivenUp: a Store gives up, at its next renewal, the lease of a session
// with nothing running or starting, without calling it lost, so that the session can run
// in whichever process its client uses next.
func TestIdleLeaseGivenUp(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, err := Open(bg, dsn, &Options{LeaseTTL: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	storetest.MustDefine(t, a, storetest.Def("s1", "clock", ""))
	lost := make(chan string, 4)
	a.OnLeaseLost(func(s string) { lost <- s })
	mustAcquire(t, a, "s1", true)
	eventually(t, "the idle session's lease to be given up", func() bool {
		return queryInt(t, dsn, "SELECT count(*) FROM cordis.leases") == 0
	})
	if err := a.Close(); err != nil { // waits for the renewal goroutine
		t.Fatal(err)
	}
	if len(lost) != 0 {
		t.Fatalf("giving up an idle lease reported session %q lost", <-lost)
	}
}

func ptr[T any](v T) *T { return &v }

package pgstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// listingStore is a Store that records each session its OrphanedSessions lists, as the
// runner's adoption loop sees them.
type listingStore struct {
	*Store
	mu     sync.Mutex
	listed []string
}

func (s *listingStore) OrphanedSessions(ctx context.Context) ([]string, error) {
	got, err := s.Store.OrphanedSessions(ctx)
	s.mu.Lock()
	s.listed = append(s.listed, got...)
	s.mu.Unlock()
	return got, err
}

// TestNoAdoptionOfHeldSessions: a runner alone on its database, whose goroutines each
// define and run a Plugin in fresh sessions, never finds one of those sessions orphaned
// — each is held by this very process, whose run took its lease. The look for orphans
// used to read the Store's local lease list before an Update that took a lease recorded
// it there (after its commit), and so listed the session as handed over to this process;
// and every session whose lease a run took was listed once anyway, though no other
// Plugin of it was recorded running. Either way the runner took the lease again and read
// the session's Plugins for nothing.
func TestNoAdoptionOfHeldSessions(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := &listingStore{Store: open(t, dsn, &Options{LeaseTTL: 2 * time.Second})}
	root := kit.New(nil)
	r, err := runner.New(root, &runner.Options{Store: s, Host: &memHost{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(bg, time.Minute)
		defer cancel()
		if err := r.Dispose(ctx); err != nil {
			t.Error(err)
		}
		if err := root.Fiber().Dispose(ctx); err != nil {
			t.Error(err)
		}
	})
	const workers, perWorker = 4, 100
	host := "return (ctx) => {}"
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				ctx := kit.WithSession(bg, fmt.Sprintf("w%d-s%d", w, i))
				d, err := r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: dynamic.TargetNew, IDPrefix: "clock"}, Name: "Clock", Purpose: "Ticks.", Code: dynamic.Code{Host: &host}})
				if err == nil {
					_, err = r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Let the adoption loop look again (it looks every 100 ms with a 2 s lease), so that
	// a session listed once after its run is counted too.
	time.Sleep(time.Second)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.listed) > 0 {
		t.Fatalf("the runner was offered %d of its own %d sessions as orphans to adopt (first %q); want none: this process holds each, and runs its only Plugin",
			len(s.listed), workers*perWorker, s.listed[0])
	}
}

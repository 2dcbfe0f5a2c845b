package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// slowStore is a memory Store whose Define of session slow, and whose Mint called for
// session slow (the session on the call's context), wait until release is closed: a
// store call stuck on a lock wait or a slow server.
type slowStore struct {
	Store
	entered chan string // "define" or "mint", as a slow call starts waiting
	release chan struct{}
}

func newSlowStore() *slowStore {
	return &slowStore{Store: NewMemoryStore(), entered: make(chan string, 4), release: make(chan struct{})}
}

func (s *slowStore) hold(ctx context.Context, what string) {
	s.entered <- what
	select {
	case <-s.release:
	case <-ctx.Done():
	}
}

func (s *slowStore) Define(ctx context.Context, d Definition) (Listing, Package, error) {
	if d.Session == "slow" {
		s.hold(ctx, "define")
	}
	return s.Store.Define(ctx, d)
}

func (s *slowStore) Mint(ctx context.Context, k Counter) (string, error) {
	if session, _ := kit.SessionFrom(ctx); session == "slow" {
		s.hold(ctx, "mint")
	}
	return s.Store.Mint(ctx, k)
}

// TestSlowSessionHoldsUpNoOther: while one session's define, or the run id its run mints,
// waits on the Store, another session of the same Runner defines and runs. The Runner
// used to hold its one mutex across both store calls, so every other session's verbs
// waited for the slow one (here: for ever, as the slow calls end only after the other
// session is done; the test gives up after 20 s).
func TestSlowSessionHoldsUpNoOther(t *testing.T) {
	host := "return (ctx) => {}"
	def := dynamic.DefineInput{Plugin: newPlugin("clock"), Name: "Clock", Purpose: "Shows the time.", Code: dynamic.Code{Host: &host}}
	for _, stuck := range []string{"define", "mint"} {
		t.Run(stuck, func(t *testing.T) {
			s := newSlowStore()
			e := newEnv(t, &Options{Store: s, Host: &fakeHost{}})
			var slow dynamic.DefineOutput
			if stuck == "mint" {
				close(s.release) // the define goes through
				var err error
				if slow, err = e.r.Define(as("slow"), def); err != nil {
					t.Fatal(err)
				}
				<-s.entered
				s.release = make(chan struct{})
			}
			var once sync.Once
			release := func() { once.Do(func() { close(s.release) }) }
			var wg sync.WaitGroup
			defer wg.Wait()
			defer release()
			var slowErr error
			wg.Go(func() {
				if stuck == "define" {
					_, slowErr = e.r.Define(as("slow"), def)
				} else {
					_, slowErr = e.r.Run(as("slow"), dynamic.RunInput{PluginID: slow.PluginID, PackageID: slow.PackageID, Mode: dynamic.ModeRun})
				}
			})
			if got := <-s.entered; got != stuck {
				t.Fatalf("the slow session's %s waits in the Store's %s", stuck, got)
			}
			done := make(chan error, 1)
			go func() {
				d, err := e.r.Define(as("fast"), def)
				if err == nil {
					_, err = e.r.Run(as("fast"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(20 * time.Second):
				release()
				<-done
				t.Fatalf("another session's define and run waited for the slow session's %s in the Store", stuck)
			}
			release()
			wg.Wait()
			if slowErr != nil {
				t.Fatalf("the slow session's %s, once the Store answered: %v", stuck, slowErr)
			}
		})
	}
}

package runner_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/pgstore"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// Two runners, each on a PostgreSQL store of its own — two pools and two Store tokens,
// as two processes have — define at once for one session on one database: exactly the
// caps' worth is recorded, new Plugins and then new Packages, and the rest are refused
// with the cap's refusal, while another session's defines beside them all succeed. Each
// runner serializes its own defines, so without the store's count under the session's
// lock the two together go past the caps.
func TestCapsHoldAcrossProcesses(t *testing.T) {
	if os.Getenv(runner.StoreEnvForTests) != "" {
		t.Skip("this is the child run; the parent runs it")
	}
	if testing.Short() {
		t.Skip("-short: needs a PostgreSQL cluster")
	}
	const plugins, packages, tries = 5, 12, 20 // tries per runner
	c := pgtest.New(t)
	_, dsn, err := c.CreateDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var rs [2]*runner.Runner
	for i := range rs {
		rs[i] = capRunner(t, dsn, &runner.Options{MaxPluginsPerSession: plugins, MaxPackagesPerSession: packages})
	}
	host := "return (ctx) => {}"
	define := func(r *runner.Runner, session string, target dynamic.Target) error {
		_, err := r.Define(kit.WithSession(context.Background(), session), dynamic.DefineInput{Plugin: target,
			Name: "Clock", Purpose: "Shows the time.", Code: dynamic.Code{Host: &host}})
		return err
	}
	var mu sync.Mutex
	ok, limited := map[string]int{}, map[string]int{}
	var other []error
	burst := func(session string, n int, target dynamic.Target) {
		var wg sync.WaitGroup
		for i := range 2 * n {
			wg.Go(func() {
				err := define(rs[i%2], session, target)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok[session]++
				case runner.ReasonOf(err) == runner.ReasonLimit:
					limited[session]++
				default:
					other = append(other, err)
				}
			})
		}
		wg.Wait()
	}
	newPlugin := dynamic.Target{Kind: dynamic.TargetNew, IDPrefix: "clock"}
	var wg sync.WaitGroup
	wg.Go(func() { burst("A", tries, newPlugin) })
	wg.Go(func() { burst("B", plugins/2, newPlugin) })
	wg.Wait()
	if len(other) > 0 || ok["A"] != plugins || limited["A"] != 2*tries-plugins || ok["B"] != plugins/2*2 || limited["B"] != 0 {
		t.Fatalf("new Plugins from two runners: recorded %v, refused %v, other errors %v; want %d of A's %d and all of B's", ok, limited, other, plugins, 2*tries)
	}
	store := rs[1].Store()
	ls, err := store.Listings(context.Background(), "A")
	if err != nil || len(ls) != plugins {
		t.Fatalf("A lists %d Plugins (%v), want %d", len(ls), err, plugins)
	}
	clear(ok)
	clear(limited)
	burst("A", tries, dynamic.Target{Kind: dynamic.TargetExisting, PluginID: ls[0].ID})
	if len(other) > 0 || ok["A"] != packages-plugins || limited["A"] != 2*tries-(packages-plugins) {
		t.Fatalf("new Packages from two runners: recorded %v, refused %v, other errors %v; want %d", ok, limited, other, packages-plugins)
	}
	ps, err := store.Plugins(context.Background(), "A")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range ps {
		n += len(p.Packages)
	}
	if len(ps) != plugins || n != packages {
		t.Fatalf("A holds %d Plugins and %d Packages, want its caps, %d and %d", len(ps), n, plugins, packages)
	}
}

// capRunner returns a runner on a pgstore.Store of its own on dsn, disposed (and the
// store closed) when t ends.
func capRunner(t *testing.T, dsn string, opts *runner.Options) *runner.Runner {
	t.Helper()
	s, err := pgstore.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	root := kit.New(nil)
	o := *opts
	o.Store = s
	r, err := runner.New(root, &o)
	if err != nil {
		_ = s.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := r.Dispose(ctx); err != nil {
			t.Error(err)
		}
		if err := root.Fiber().Dispose(ctx); err != nil {
			t.Error(err)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return r
}

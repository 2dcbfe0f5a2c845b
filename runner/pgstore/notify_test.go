package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/google/go-cmp/cmp"
)

// heardNotices collects what s's watchers are told.
func heardNotices(t *testing.T, s *Store) chan runner.ChangeNotice {
	ch := make(chan runner.ChangeNotice, 64)
	t.Cleanup(s.WatchChanges(func(n runner.ChangeNotice) { ch <- n }))
	return ch
}

// next returns the next value of ch, failing t after a minute (a bound for a broken
// build, not a timing assertion).
func next[T any](t *testing.T, ch chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		var zero T
		t.Fatalf("no %T came within a minute", zero)
		return zero
	}
}

// TestChangesSeenAcrossStores: every change one Store records — a define of a new Plugin
// and of a Package, the Updates that start a run, grant, and stop it, a removal — reaches
// the other Store's watchers once each, in order; a Store does not hear its own changes,
// and a refused define or Update announces nothing.
func TestChangesSeenAcrossStores(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := open(t, dsn, nil), open(t, dsn, nil)
	fromA, fromB := heardNotices(t, b), heardNotices(t, a)
	p, k1 := storetest.MustDefine(t, a, storetest.Def("s1", "clock", ""))
	if _, _, err := a.Define(bg, storetest.Def("s2", "", p.ID)); !errors.Is(err, runner.ErrNotFound) {
		t.Fatalf("a define of another session's Plugin = %v, want ErrNotFound", err)
	}
	_, k := storetest.MustDefine(t, a, storetest.Def("s1", "", p.ID))
	for _, c := range []runner.Change{
		{Running: ptr(true), Current: ptr(k.ID)},
		{Grant: k.ID},
		{Running: ptr(false)},
	} {
		if _, err := a.Update(bg, p.ID, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Update(bg, p.ID, runner.Change{Current: ptr("pkg-999")}); err == nil {
		t.Fatal("an Update naming a Package the Plugin does not have was applied")
	}
	if err := a.Remove(bg, p.ID); err != nil {
		t.Fatal(err)
	}
	q, qk := storetest.MustDefine(t, b, storetest.Def("s2", "panel", ""))
	var got []runner.ChangeNotice
	for range 6 {
		got = append(got, next(t, fromA))
	}
	got = append(got, next(t, fromB))
	want := []runner.ChangeNotice{
		{Session: "s1", PluginID: p.ID, PackageID: k1.ID, Change: runner.Defined},
		{Session: "s1", PluginID: p.ID, PackageID: k.ID, Change: runner.Defined},
		{Session: "s1", PluginID: p.ID, Change: runner.Updated},
		{Session: "s1", PluginID: p.ID, Change: runner.Updated},
		{Session: "s1", PluginID: p.ID, Change: runner.Updated},
		{Session: "s1", PluginID: p.ID, Change: runner.Undefined},
		{Session: "s2", PluginID: q.ID, PackageID: qk.ID, Change: runner.Defined},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("changes heard (-want +got):\n%s", diff)
	}
	select { // and nothing else came
	case n := <-fromA:
		t.Fatalf("b heard %+v more", n)
	case n := <-fromB:
		t.Fatalf("a heard %+v more", n)
	case <-time.After(200 * time.Millisecond):
	}
}

// relayed collects the DefinitionChanged events a runner emits, as a panel hears them.
func relayed(t testing.TB, root *kit.Context) chan runner.DefinitionChangedEvent {
	ch := make(chan runner.DefinitionChangedEvent, 256)
	if err := root.Plugin(&kit.Plugin{Name: "panel-like", Apply: func(c *kit.Context) error {
		_, err := runner.DefinitionChanged.On(c, func(ev runner.DefinitionChangedEvent) { ch <- ev })
		return err
	}}).Err(); err != nil {
		t.Fatal(err)
	}
	return ch
}

// newRelayRunner starts a runner on a Store of its own on dsn, disposed when t ends.
func newRelayRunner(t testing.TB, dsn string, opts *Options, ro runner.Options) (*kit.Context, *runner.Runner, *Store) {
	t.Helper()
	s := open(t, dsn, opts)
	root := kit.New(nil)
	ro.Store = s
	if ro.Host == nil {
		ro.Host = &memHost{}
	}
	r, err := runner.New(root, &ro)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(bg, time.Minute)
		defer cancel()
		if err := errors.Join(r.Dispose(ctx), root.Fiber().Dispose(ctx)); err != nil {
			t.Error(err)
		}
	})
	return root, r, s
}

func defineClock(t *testing.T, r *runner.Runner, session string) dynamic.DefineOutput {
	t.Helper()
	host := "return (ctx) => {}"
	d, err := r.Define(kit.WithSession(bg, session), dynamic.DefineInput{Plugin: dynamic.Target{Kind: dynamic.TargetNew, IDPrefix: "clock"}, Name: "Clock", Purpose: "Ticks.", Code: dynamic.Code{Host: &host}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRunnerRelaysChanges: a Runner on the store emits DefinitionChanged for what a
// Runner in another process (here on another Store) did — a define, a run, a stop, an
// undefine — naming the session and the Plugin, as a panel of that session needs to read
// its inventory again; the run and the stop, which change the record but no definition,
// as Updated. Each arrives within a round trip or two of the change (logged).
func TestRunnerRelaysChanges(t *testing.T) {
	dsn := pgtest.DSN(t)
	_, a, _ := newRelayRunner(t, dsn, nil, runner.Options{})
	rootB, _, _ := newRelayRunner(t, dsn, nil, runner.Options{})
	heard := relayed(t, rootB)
	ctx := kit.WithSession(bg, "alice")
	var delays []time.Duration
	d := defineClock(t, a, "alice")
	// told returns what b told after change, until a's define of a sentinel Plugin (in
	// another session), which comes after everything change recorded: notices arrive in
	// the order their changes committed.
	told := func(change func()) []runner.DefinitionChangedEvent {
		t.Helper()
		start := time.Now()
		change()
		sentinel := defineClock(t, a, "zed")
		var got []runner.DefinitionChangedEvent
		for {
			ev := next(t, heard)
			if len(got) == 0 {
				delays = append(delays, time.Since(start))
			}
			if ev.PluginID == sentinel.PluginID {
				return got
			}
			got = append(got, ev)
		}
	}
	if got := told(func() {}); !cmp.Equal(got, []runner.DefinitionChangedEvent{{Session: "alice", PluginID: d.PluginID, PackageID: d.PackageID, Change: runner.Defined}}) {
		t.Fatalf("after the define the other runner told %+v", got)
	}
	updates := func(what string, got []runner.DefinitionChangedEvent) {
		t.Helper()
		if len(got) == 0 {
			t.Fatalf("the other runner told nothing of the %s", what)
		}
		for _, ev := range got {
			if ev != (runner.DefinitionChangedEvent{Session: "alice", PluginID: d.PluginID, Change: runner.Updated}) {
				t.Fatalf("after the %s the other runner told %+v", what, got)
			}
		}
	}
	updates("run", told(func() {
		if _, err := a.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
			t.Fatal(err)
		}
	}))
	updates("stop", told(func() {
		if _, err := a.Stop(ctx, dynamic.StopInput{PluginID: d.PluginID}); err != nil {
			t.Fatal(err)
		}
	}))
	if got := told(func() {
		if _, err := a.Undefine(ctx, dynamic.UndefineInput{PluginID: d.PluginID}); err != nil {
			t.Fatal(err)
		}
	}); !cmp.Equal(got, []runner.DefinitionChangedEvent{{Session: "alice", PluginID: d.PluginID, Change: runner.Undefined}}) {
		t.Fatalf("after the undefine the other runner told %+v", got)
	}
	t.Logf("the first event of each change (define, run, stop, undefine) told by the other runner %v after the change began", delays)
}

// notifySQL sends payload on the store's changes channel as any role that can connect
// may, with plain SQL.
func notifySQL(t *testing.T, dsn, payload string) {
	t.Helper()
	execSQL(t, dsn, fmt.Sprintf("SELECT pg_notify('%s', '%s')", changesChannel, strings.ReplaceAll(payload, "'", "''")))
}

// TestForgedNoticeOnlyReloads: notices sent with plain SQL, as any role that can connect
// may send them, make a runner do no more than tell the session they name to read its
// own inventory again. A notice that names another session's Plugin, or says a Plugin
// that exists was removed, is told as a reload naming no Plugin (the panel learns no
// owner from it, and drops nothing); one that is not a notice at all, or names a change
// that does not exist, or names a session that has no Plugins, is ignored. Nothing in the
// store or in the runner's runs changes.
func TestForgedNoticeOnlyReloads(t *testing.T) {
	dsn := pgtest.DSN(t)
	_, a, _ := newRelayRunner(t, dsn, &Options{LeaseTTL: time.Hour}, runner.Options{})
	rootB, _, _ := newRelayRunner(t, dsn, &Options{LeaseTTL: time.Hour}, runner.Options{})
	heard := relayed(t, rootB)
	alice := defineClock(t, a, "alice")
	if _, err := a.Run(kit.WithSession(bg, "alice"), dynamic.RunInput{PluginID: alice.PluginID, PackageID: alice.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	bob := defineClock(t, a, "bob")
	eventually(t, "b to hear a's changes", func() bool {
		for len(heard) > 0 {
			if ev := <-heard; ev.Session == "bob" && ev.Change == runner.Defined {
				return true
			}
		}
		return false
	})
	forged := func(session, plugin, pkg, change string) string {
		return fmt.Sprintf(`{"schema":"cordis","origin":"forger","session":%q,"plugin":%q,"package":%q,"change":%q}`, session, plugin, pkg, change)
	}
	for _, payload := range []string{
		forged("bob", alice.PluginID, alice.PackageID, "defined"), // claims alice's Plugin for bob
		forged("bob", alice.PluginID, "", "undefined"),            // drops alice's Plugin from bob's pages
		forged("alice", alice.PluginID, "", "undefined"),          // says a Plugin that exists was removed
		forged("alice", alice.PluginID, "", "stop everything"),    // no such change
		forged("", alice.PluginID, "", "updated"),                 // no session
		forged("mallory", "clock-99", "", "undefined"),            // a session without Plugins: nothing to reload
		forged("mallory", alice.PluginID, "", "updated"),
		`not a notice`,
		`{"schema":"cordis","session":"alice","plugin":"` + alice.PluginID + `","change":"updated"}`, // a reload of her own Plugin: harmless
	} {
		notifySQL(t, dsn, payload)
	}
	// A change of a's own, last: what b tells before it is what the forged notices caused.
	if _, err := a.Undefine(kit.WithSession(bg, "bob"), dynamic.UndefineInput{PluginID: bob.PluginID}); err != nil {
		t.Fatal(err)
	}
	var got []runner.DefinitionChangedEvent
	for {
		ev := next(t, heard)
		if ev.Session == "bob" && ev.Change == runner.Undefined {
			break
		}
		got = append(got, ev)
	}
	want := []runner.DefinitionChangedEvent{
		{Session: "bob", Change: runner.Updated},
		{Session: "bob", Change: runner.Updated},
		{Session: "alice", PluginID: alice.PluginID, Change: runner.Updated},
		{Session: "alice", PluginID: alice.PluginID, Change: runner.Updated},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("what the forged notices made the runner tell (-want +got):\n%s", diff)
	}
	p, err := a.Store().Plugin(bg, alice.PluginID)
	if err != nil || p.Session != "alice" || !p.Running {
		t.Fatalf("alice's Plugin after the forged notices: %+v, %v; want it hers and running", p, err)
	}
}

// terminateListeners ends, from the server's side, every connection of the database that
// LISTENs (pg_terminate_backend), and returns how many it ended.
func terminateListeners(t *testing.T, dsn string) int64 {
	t.Helper()
	return queryInt(t, dsn, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = '`+listenerName+`'`)
}

// TestRelayResyncsAfterListenLost: the listening connection of the runners' Stores is
// killed on the server (pg_terminate_backend) and a change is made right away, while no
// one listens: the Store listens again within a backoff (0.1 s first) and tells its runner
// that notices may have been lost, and the runner tells every session with Plugins to read
// its inventory again — bob's too, whom no notice named — so the change missed in the
// window reaches alice's panel as well.
func TestRelayResyncsAfterListenLost(t *testing.T) {
	dsn := pgtest.DSN(t)
	_, a, _ := newRelayRunner(t, dsn, nil, runner.Options{})
	rootB, _, _ := newRelayRunner(t, dsn, nil, runner.Options{})
	heard := relayed(t, rootB)
	alice := defineClock(t, a, "alice")
	bob := defineClock(t, a, "bob")
	for _, d := range []dynamic.DefineOutput{alice, bob} {
		eventually(t, "b to hear "+d.PluginID, func() bool { return len(heard) > 0 && (<-heard).PluginID == d.PluginID })
	}
	killed := time.Now()
	if n := terminateListeners(t, dsn); n != 2 {
		t.Fatalf("ended %d listening connections, want the two Stores'", n)
	}
	if _, err := a.Run(kit.WithSession(bg, "alice"), dynamic.RunInput{PluginID: alice.PluginID, PackageID: alice.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	var aliceTold, bobTold bool
	for !aliceTold || !bobTold {
		ev := next(t, heard)
		switch {
		case ev.Session == "bob" && ev == runner.DefinitionChangedEvent{Session: "bob", Change: runner.Updated}:
			bobTold = true
		case ev.Session == "alice" && ev.Change == runner.Updated:
			aliceTold = true
		default:
			t.Fatalf("after the listening connection was lost the runner told %+v", ev)
		}
	}
	t.Logf("every session told to read its inventory again %v after the listening connections were killed", time.Since(killed))
	if n := queryInt(t, dsn, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = '"+listenerName+"'"); n != 2 {
		t.Fatalf("%d listening connections after the resync, want the two Stores'", n)
	}
	// And notices flow again.
	if _, err := a.Stop(kit.WithSession(bg, "alice"), dynamic.StopInput{PluginID: alice.PluginID}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the stop to be told", func() bool {
		return len(heard) > 0 && (<-heard) == runner.DefinitionChangedEvent{Session: "alice", PluginID: alice.PluginID, Change: runner.Updated}
	})
}

// memHost is a HostStarter whose halves do nothing but say, in live, which runner runs
// which Plugin (who), so a test can check that no Plugin runs in two runners at once.
type memHost struct {
	who  string
	live *liveSet
}

// liveSet is which runners run each Plugin's host half now.
type liveSet struct {
	mu sync.Mutex
	by map[string]map[string]bool // Plugin → runners
	// twice records each Plugin that ran in two runners at once.
	twice []string
}

type memRun struct {
	h      *memHost
	plugin string
	once   sync.Once
}

func (h *memHost) Start(_ context.Context, _ *kit.Context, spec runner.HostSpec) (runner.HostRun, error) {
	if h.live != nil {
		h.live.mu.Lock()
		if h.live.by[spec.PluginID] == nil {
			h.live.by[spec.PluginID] = map[string]bool{}
		}
		if len(h.live.by[spec.PluginID]) > 0 {
			h.live.twice = append(h.live.twice, spec.PluginID)
		}
		h.live.by[spec.PluginID][h.who] = true
		h.live.mu.Unlock()
	}
	return &memRun{h: h, plugin: spec.PluginID}, nil
}

func (r *memRun) WaitingFor() []string                  { return nil }
func (r *memRun) Provides() []string                    { return nil }
func (r *memRun) Handlers(ctx context.Context) []string { return nil }
func (r *memRun) Invoke(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, runner.ErrMethodNotFound
}

func (r *memRun) Stop(context.Context) error {
	r.once.Do(func() {
		if l := r.h.live; l != nil {
			l.mu.Lock()
			delete(l.by[r.plugin], r.h.who)
			l.mu.Unlock()
		}
	})
	return nil
}

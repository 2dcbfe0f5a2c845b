// Package storetest is the conformance suite every runner.Store passes: the memory store
// and the SQL store run the same checks, so the runner behaves the same on either.
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) runner.Store { return runner.NewMemoryStore() })
//	}
//
// Durable runs the restart checks for a Store kept in a file.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// Run runs the conformance suite; open returns a new, empty Store for each subtest.
func Run(t *testing.T, open func(t *testing.T) runner.Store) {
	for _, c := range []struct {
		name string
		fn   func(t *testing.T, s runner.Store)
	}{
		{"Define", testDefine},
		{"DefineRefused", testDefineRefused},
		{"Plugins", testPlugins},
		{"Listings", testListings},
		{"Update", testUpdate},
		{"UpdateRefused", testUpdateRefused},
		{"Grants", testGrants},
		{"Remove", testRemove},
		{"Mint", testMint},
		{"Copies", testCopies},
		{"Concurrent", testConcurrent},
		{"Caps", testCaps},
		{"CapsConcurrent", testCapsConcurrent},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

var bg = context.Background()

// Def is a Definition of a new Plugin (prefix set) or of a Package of plugin.
func Def(session, prefix, plugin string) runner.Definition {
	return runner.Definition{Session: session, Prefix: prefix, PluginID: plugin, Name: "Clock", Purpose: "Shows the time.", Host: "return (ctx) => {}"}
}

// MustDefine defines and fails t on error.
func MustDefine(t *testing.T, s runner.Store, d runner.Definition) (runner.Listing, runner.Package) {
	t.Helper()
	l, k, err := s.Define(bg, d)
	if err != nil {
		t.Fatalf("Define(%+v): %v", d, err)
	}
	return l, k
}

// defineListed is MustDefine that also fails t unless Define returned the Listing of the
// Plugin as the Store holds it next, with the new Package its last.
func defineListed(t *testing.T, s runner.Store, d runner.Definition) (runner.Listing, runner.Package) {
	t.Helper()
	l, k := MustDefine(t, s, d)
	p := get(t, s, l.ID)
	if want := p.Listing(); !reflect.DeepEqual(l, want) {
		t.Fatalf("Define(%+v) returned the Listing\n%+v\nwant the Plugin's as the Store holds it\n%+v", d, l, want)
	}
	if last := p.Packages[len(p.Packages)-1]; last != k {
		t.Fatalf("Define(%+v) returned the Package %+v; the Plugin's last is %+v", d, k, last)
	}
	return l, k
}

// MustUpdate updates and fails t on error.
func MustUpdate(t *testing.T, s runner.Store, id string, c runner.Change) runner.Plugin {
	t.Helper()
	p, err := s.Update(bg, id, c)
	if err != nil {
		t.Fatalf("Update(%s): %v", id, err)
	}
	return p
}

func get(t *testing.T, s runner.Store, id string) runner.Plugin {
	t.Helper()
	p, err := s.Plugin(bg, id)
	if err != nil {
		t.Fatalf("Plugin(%s): %v", id, err)
	}
	return p
}

func ids(ps []runner.Plugin) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func testDefine(t *testing.T, s runner.Store) {
	l, k := defineListed(t, s, Def("s1", "clock", ""))
	if want := (runner.Listing{ID: "clock-1", Session: "s1", Name: "Clock", PackageCount: 1}); !reflect.DeepEqual(l, want) {
		t.Fatalf("first define: Listing %+v, want %+v", l, want)
	}
	want := runner.Package{ID: "pkg-1", Name: "Clock", Purpose: "Shows the time.", Host: "return (ctx) => {}"}
	if got := get(t, s, "clock-1").Packages; k != want || !reflect.DeepEqual(got, []runner.Package{want}) {
		t.Fatalf("package = %+v, plugin packages %+v; want %+v", k, got, want)
	}
	// The Plugin counter is shared by every prefix; the Package counter by every Plugin.
	l2, k2 := defineListed(t, s, Def("s1", "panel", ""))
	l3, k3 := defineListed(t, s, runner.Definition{Session: "s1", PluginID: "clock-1", Name: "Clock 2", Purpose: "p", Client: "return {}"})
	if l2.ID != "panel-2" || k2.ID != "pkg-2" || k3.ID != "pkg-3" {
		t.Fatalf("ids: %s %s %s, want panel-2 pkg-2 pkg-3", l2.ID, k2.ID, k3.ID)
	}
	if want := (runner.Listing{ID: "clock-1", Session: "s1", Name: "Clock 2", PackageCount: 2}); !reflect.DeepEqual(l3, want) {
		t.Fatalf("a second Package: Listing %+v, want %+v (named for the newest, with neither pointer set)", l3, want)
	}
	got := get(t, s, "clock-1")
	if len(got.Packages) != 2 || got.Packages[1].ID != "pkg-3" || got.Packages[1].Client != "return {}" || got.Packages[1].Host != "" {
		t.Fatalf("clock-1 packages = %+v, want pkg-1 and pkg-3 (client only)", got.Packages)
	}
}

func testDefineRefused(t *testing.T, s runner.Store) {
	MustDefine(t, s, Def("s1", "clock", ""))
	for _, d := range []runner.Definition{Def("s2", "", "clock-1"), Def("s1", "", "nope-9")} {
		if _, _, err := s.Define(bg, d); !errors.Is(err, runner.ErrNotFound) {
			t.Errorf("Define(%s as %s) = %v, want ErrNotFound", d.PluginID, d.Session, err)
		}
	}
	// A failed define consumed no number.
	p, k := MustDefine(t, s, Def("s1", "abc", ""))
	if p.ID != "abc-2" || k.ID != "pkg-2" {
		t.Fatalf("after refused defines: %s %s, want abc-2 pkg-2", p.ID, k.ID)
	}
}

func testPlugins(t *testing.T, s runner.Store) {
	MustDefine(t, s, Def("s1", "aaa", ""))
	MustDefine(t, s, Def("s2", "bbb", ""))
	MustDefine(t, s, Def("s1", "ccc", ""))
	for _, c := range []struct {
		session string
		want    []string
	}{{"s1", []string{"aaa-1", "ccc-3"}}, {"s2", []string{"bbb-2"}}, {"", []string{"aaa-1", "bbb-2", "ccc-3"}}, {"s3", []string{}}} {
		ps, err := s.Plugins(bg, c.session)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(ps); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Plugins(%q) = %v, want %v", c.session, got, c.want)
		}
	}
	if _, err := s.Plugin(bg, "zzz-1"); !errors.Is(err, runner.ErrNotFound) {
		t.Errorf("Plugin(zzz-1) = %v, want ErrNotFound", err)
	}
}

// testListings checks that Listings agrees with the full Plugins, as Plugin.Listing
// summarises them, after every step of a few shapes: no attempt yet, several Packages
// with next, current or neither naming one, the latest attempt for a client Package or
// not, two sessions, a removed Plugin, and a change to a returned Listing.
func testListings(t *testing.T, s runner.Store) {
	client := runner.Definition{Session: "s1", PluginID: "clock-1", Name: "Clock UI", Purpose: "p", Client: "return {}"}
	steps := []struct {
		name string
		do   func()
	}{
		{"one Package", func() { defineListed(t, s, Def("s1", "clock", "")) }},
		{"another session", func() { defineListed(t, s, Def("s2", "panel", "")) }},
		{"a client Package", func() { defineListed(t, s, client) }},
		{"a third Package", func() { defineListed(t, s, Def("s1", "", "clock-1")) }},
		{"next on the client Package", func() {
			MustUpdate(t, s, "clock-1", runner.Change{Next: ptr("pkg-3"), Attempt: MintAttempt(t, s, "pkg-3")})
		}},
		{"current set, next cleared", func() {
			MustUpdate(t, s, "clock-1", runner.Change{Current: ptr("pkg-1"), Next: ptr(""), Attempt: MintAttempt(t, s, "pkg-1"), Running: ptr(true)})
		}},
		{"a Package with current and the latest attempt set", func() { defineListed(t, s, Def("s1", "", "clock-1")) }},
		{"a Plugin after the other session's", func() { defineListed(t, s, Def("s1", "gone", "")) }},
		{"the other session's Plugin granted", func() { MustUpdate(t, s, "panel-2", runner.Change{Grant: "pkg-2", Future: ptr(true)}) }},
		{"a removal", func() {
			if err := s.Remove(bg, "gone-3"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, step := range steps {
		step.do()
		for _, session := range []string{"", "s1", "s2", "s3"} {
			checkListings(t, s, step.name, session)
		}
	}
	ls, err := s.Listings(bg, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 1 || ls[0].Name != "Clock" || ls[0].PackageCount != 4 || ls[0].LatestHasClient || ls[0].Latest == nil {
		t.Fatalf("Listings(s1) = %+v, want clock-1 named for its current pkg-1 (a host-only Package), with 4 Packages", ls)
	}
	ls[0].Latest.Client.WaitingFor[0] = "changed"
	ls[0].Latest.Error.Message = "changed"
	if got := get(t, s, "clock-1").Latest; got.Client.WaitingFor[0] != "fs" || got.Error.Message != "boom" {
		t.Fatalf("changing a returned Listing changed the Store: %+v", got)
	}
}

// checkListings fails t unless Listings(session) is Plugins(session), each Plugin as its
// Listing.
func checkListings(t *testing.T, s runner.Store, step, session string) {
	t.Helper()
	ps, err := s.Plugins(bg, session)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]runner.Listing, 0, len(ps))
	for _, p := range ps {
		want = append(want, p.Listing())
	}
	got, err := s.Listings(bg, session)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after %s, Listings(%q) =\n%+v\nwant the Listing of each Plugin Plugins returns\n%+v", step, session, got, want)
	}
}

// Attempt is a filled-in attempt, with every field set, to check that a Store keeps it.
// It names run runID and approval request approvalID, which the caller minted from the
// Store first, as the runner does: a Store may raise a counter that is below a stored id
// (sqlstore does, at Open). MintAttempt mints them.
func Attempt(runID, pkg, approvalID string) *dynamic.Attempt {
	return &dynamic.Attempt{PluginRunID: runID, PackageID: pkg, Mode: dynamic.ModeUpdate, Status: dynamic.RunFailed,
		ApprovalRequestID: approvalID, RequiresApproval: true,
		Host:          dynamic.Half{Status: dynamic.HalfFailed, WaitingFor: []string{}, Error: "boom"},
		Client:        dynamic.Half{Status: dynamic.HalfWaiting, WaitingFor: []string{"fs", "web"}},
		Error:         &dynamic.Diagnostic{Phase: dynamic.PhaseHostLoad, Message: "boom", Stack: "at <eval>:1:1", PluginID: "clock-1", PackageID: pkg, PluginRunID: runID},
		RenderFailure: &dynamic.RenderFailure{Slot: "main", Message: "x", Abdicated: true}}
}

// MintAttempt mints a run id and an approval id from s and returns the Attempt of pkg
// that names them.
func MintAttempt(t *testing.T, s runner.Store, pkg string) *dynamic.Attempt {
	t.Helper()
	run, err := s.Mint(bg, runner.CounterRun)
	if err != nil {
		t.Fatal(err)
	}
	approval, err := s.Mint(bg, runner.CounterApproval)
	if err != nil {
		t.Fatal(err)
	}
	return Attempt(run, pkg, approval)
}

func ptr[T any](v T) *T { return &v }

func testUpdate(t *testing.T, s runner.Store) {
	MustDefine(t, s, Def("s1", "clock", ""))
	MustDefine(t, s, Def("s1", "", "clock-1"))
	a := MintAttempt(t, s, "pkg-2")
	p := MustUpdate(t, s, "clock-1", runner.Change{Attempt: a, Current: ptr("pkg-1"), Next: ptr("pkg-2"), Running: ptr(true)})
	if p.Current != "pkg-1" || p.Next != "pkg-2" || !p.Running || !reflect.DeepEqual(p.Latest, a) {
		t.Fatalf("after update: current %q next %q running %v latest %+v", p.Current, p.Next, p.Running, p.Latest)
	}
	if got := get(t, s, "clock-1"); !reflect.DeepEqual(got, p) {
		t.Fatalf("Plugin after Update = %+v, want what Update returned %+v", got, p)
	}
	// Unset fields change nothing; "" clears a pointer.
	p = MustUpdate(t, s, "clock-1", runner.Change{Next: ptr(""), Running: ptr(false)})
	if p.Current != "pkg-1" || p.Next != "" || p.Running || !reflect.DeepEqual(p.Latest, a) {
		t.Fatalf("after clearing next: current %q next %q running %v latest %+v", p.Current, p.Next, p.Running, p.Latest)
	}
	if _, err := s.Update(bg, "nope-1", runner.Change{Next: ptr("")}); !errors.Is(err, runner.ErrNotFound) {
		t.Errorf("Update(nope-1) = %v, want ErrNotFound", err)
	}
}

func testUpdateRefused(t *testing.T, s runner.Store) {
	MustDefine(t, s, Def("s1", "clock", ""))
	MustDefine(t, s, Def("s1", "panel", ""))
	before := get(t, s, "clock-1")
	for _, c := range []struct {
		name string
		c    runner.Change
	}{
		{"current", runner.Change{Current: ptr("pkg-2"), Attempt: MintAttempt(t, s, "pkg-1")}},
		{"next", runner.Change{Next: ptr("pkg-9"), Future: ptr(true)}},
		{"grant", runner.Change{Grant: "pkg-2", Running: ptr(true)}},
	} {
		_, err := s.Update(bg, "clock-1", c.c)
		if want := "runner: plugin clock-1 has no package "; err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("%s: Update = %v, want %q…", c.name, err, want)
		}
	}
	if got := get(t, s, "clock-1"); !reflect.DeepEqual(got, before) {
		t.Fatalf("refused updates changed the Plugin: %+v, was %+v", got, before)
	}
}

func testGrants(t *testing.T, s runner.Store) {
	MustDefine(t, s, Def("s1", "clock", ""))
	MustDefine(t, s, Def("s1", "", "clock-1"))
	MustUpdate(t, s, "clock-1", runner.Change{Grant: "pkg-2"})
	MustUpdate(t, s, "clock-1", runner.Change{Grant: "pkg-1"})
	p := MustUpdate(t, s, "clock-1", runner.Change{Grant: "pkg-2", Future: ptr(true)})
	if want := (runner.Grants{Packages: []string{"pkg-2", "pkg-1"}, Future: true}); !reflect.DeepEqual(p.Grants, want) {
		t.Fatalf("grants = %+v, want %+v (in grant order, no duplicates)", p.Grants, want)
	}
	p = MustUpdate(t, s, "clock-1", runner.Change{Revoke: "pkg-2", Future: ptr(false)})
	if want := (runner.Grants{Packages: []string{"pkg-1"}}); !reflect.DeepEqual(p.Grants, want) {
		t.Fatalf("after revoking pkg-2 and future: %+v, want %+v", p.Grants, want)
	}
	if got := get(t, s, "clock-1").Grants; !reflect.DeepEqual(got, p.Grants) {
		t.Fatalf("Plugin grants = %+v, want %+v", got, p.Grants)
	}
}

func testRemove(t *testing.T, s runner.Store) {
	MustDefine(t, s, Def("s1", "clock", ""))
	MustUpdate(t, s, "clock-1", runner.Change{Grant: "pkg-1", Current: ptr("pkg-1")})
	if err := s.Remove(bg, "clock-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Plugin(bg, "clock-1"); !errors.Is(err, runner.ErrNotFound) {
		t.Fatalf("Plugin after Remove = %v, want ErrNotFound", err)
	}
	if err := s.Remove(bg, "clock-1"); !errors.Is(err, runner.ErrNotFound) {
		t.Fatalf("second Remove = %v, want ErrNotFound", err)
	}
	if ps, _ := s.Plugins(bg, ""); len(ps) != 0 {
		t.Fatalf("Plugins after Remove = %v", ids(ps))
	}
	// Its ids are never minted again.
	l, k := MustDefine(t, s, Def("s1", "clock", ""))
	if p := get(t, s, l.ID); l.ID != "clock-2" || k.ID != "pkg-2" || len(p.Packages) != 1 || len(p.Grants.Packages) != 0 || p.Current != "" {
		t.Fatalf("define after Remove: %s %s %+v", l.ID, k.ID, p)
	}
}

func testMint(t *testing.T, s runner.Store) {
	var got []string
	for _, k := range []runner.Counter{runner.CounterRun, runner.CounterRun, runner.CounterApproval, runner.CounterRun} {
		id, err := s.Mint(bg, k)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	if want := []string{"run-1", "run-2", "approval-1", "run-3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("minted %v, want %v", got, want)
	}
	if id, err := s.Mint(bg, "plugin"); err == nil {
		t.Fatalf("Mint(plugin) = %q, want an error (Define advances that counter)", id)
	}
}

func testCopies(t *testing.T, s runner.Store) {
	MustDefine(t, s, Def("s1", "clock", ""))
	p := MustUpdate(t, s, "clock-1", runner.Change{Attempt: MintAttempt(t, s, "pkg-1"), Grant: "pkg-1"})
	p.Packages[0].Name = "changed"
	p.Grants.Packages[0] = "changed"
	p.Latest.Client.WaitingFor[0] = "changed"
	p.Latest.Error.Message = "changed"
	got := get(t, s, "clock-1")
	if got.Packages[0].Name != "Clock" || got.Grants.Packages[0] != "pkg-1" || got.Latest.Client.WaitingFor[0] != "fs" || got.Latest.Error.Message != "boom" {
		t.Fatalf("changing a returned Plugin changed the Store: %+v", got)
	}
}

// testConcurrent defines, updates and mints for different Plugins at once (the Runner
// serializes per Plugin only); run it with -race.
func testConcurrent(t *testing.T, s runner.Store) {
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			l, k, err := s.Define(bg, Def(fmt.Sprintf("s%d", i), "con", ""))
			if err == nil {
				_, err = s.Update(bg, l.ID, runner.Change{Current: ptr(k.ID)})
			}
			if err == nil {
				_, err = s.Mint(bg, runner.CounterRun)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ps, err := s.Plugins(bg, "")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.ID] || p.Current != p.Packages[0].ID {
			t.Fatalf("plugin %s duplicated or not updated: %+v", p.ID, p)
		}
		seen[p.ID] = true
	}
	if len(seen) != n {
		t.Fatalf("%d plugins, want %d", len(seen), n)
	}
	if id, _ := s.Mint(bg, runner.CounterRun); id != fmt.Sprintf("run-%d", n+1) {
		t.Fatalf("next run id %s, want run-%d", id, n+1)
	}
}

// capped is Def with caps.
func capped(d runner.Definition, plugins, packages int) runner.Definition {
	d.MaxPlugins, d.MaxPackages = plugins, packages
	return d
}

// wantCap fails t unless err is the *runner.CapError of cap at the counts given.
func wantCap(t *testing.T, what string, err error, want runner.CapError) {
	t.Helper()
	if c, ok := errors.AsType[*runner.CapError](err); !ok || *c != want {
		t.Fatalf("%s = %v, want the *runner.CapError %+v", what, err, want)
	}
}

// testCaps checks Define's caps: a new Plugin past MaxPlugins and any Package past
// MaxPackages are refused with a *runner.CapError that gives the session's counts,
// recording nothing and consuming no number; another session's Plugin is ErrNotFound
// whatever the caps; zero caps nothing; another session's holdings do not count.
func testCaps(t *testing.T, s runner.Store) {
	MustDefine(t, s, capped(Def("s1", "clock", ""), 2, 4))   // clock-1 pkg-1
	MustDefine(t, s, capped(Def("s1", "", "clock-1"), 2, 4)) // pkg-2
	MustDefine(t, s, capped(Def("s1", "web", ""), 2, 4))     // web-2 pkg-3
	MustDefine(t, s, capped(Def("s2", "other", ""), 1, 1))   // other-3 pkg-4
	_, _, err := s.Define(bg, capped(Def("s1", "page", ""), 2, 4))
	wantCap(t, "a third Plugin at a cap of 2", err, runner.CapError{Cap: runner.CapPlugins, Plugins: 2, Packages: 3})
	MustDefine(t, s, capped(Def("s1", "", "web-2"), 2, 4)) // pkg-5: the Package cap is 4
	for _, d := range []runner.Definition{capped(Def("s1", "", "clock-1"), 2, 4), capped(Def("s1", "page", ""), 9, 4)} {
		_, _, err = s.Define(bg, d)
		wantCap(t, fmt.Sprintf("a fifth Package (%s%s) at a cap of 4", d.Prefix, d.PluginID), err, runner.CapError{Cap: runner.CapPackages, Plugins: 2, Packages: 4})
	}
	if _, _, err := s.Define(bg, capped(Def("s1", "", "other-3"), 2, 4)); !errors.Is(err, runner.ErrNotFound) {
		t.Fatalf("a Package of another session's Plugin, at the caps = %v, want ErrNotFound", err)
	}
	if l, k := MustDefine(t, s, Def("s1", "", "clock-1")); l.PackageCount != 3 || k.ID != "pkg-6" {
		t.Fatalf("an uncapped define after the refusals: %+v %s, want clock-1 with 3 Packages and pkg-6 (the refusals consumed no number)", l, k.ID)
	}
	checkListings(t, s, "the refused defines", "s1")
	if err := s.Remove(bg, "clock-1"); err != nil {
		t.Fatal(err)
	}
	if l, _ := MustDefine(t, s, capped(Def("s1", "page", ""), 2, 4)); l.ID != "page-4" {
		t.Fatalf("a Plugin after a removal made room is %s, want page-4", l.ID)
	}
}

// testCapsConcurrent defines at once for one session, new Plugins and then new Packages,
// and gets exactly each cap's worth: the count and the define are one change. Another
// session's defines beside them all succeed.
func testCapsConcurrent(t *testing.T, s runner.Store) {
	const plugins, packages, tries = 5, 12, 24
	var mu sync.Mutex
	var wg sync.WaitGroup
	ok, limited := map[string]int{}, map[string]int{}
	var other []error
	try := func(d runner.Definition) {
		_, _, err := s.Define(bg, capped(d, plugins, packages))
		mu.Lock()
		defer mu.Unlock()
		if _, capErr := errors.AsType[*runner.CapError](err); capErr {
			limited[d.Session]++
		} else if err != nil {
			other = append(other, err)
		} else {
			ok[d.Session]++
		}
	}
	for range tries {
		wg.Go(func() { try(Def("A", "clock", "")) })
	}
	for range plugins {
		wg.Go(func() { try(Def("B", "clock", "")) })
	}
	wg.Wait()
	if len(other) > 0 || ok["A"] != plugins || limited["A"] != tries-plugins || ok["B"] != plugins {
		t.Fatalf("new Plugins: ok %v, refused %v, other errors %v; want %d of A's and all of B's", ok, limited, other, plugins)
	}
	ls, err := s.Listings(bg, "A")
	if err != nil || len(ls) != plugins {
		t.Fatalf("A lists %d Plugins (%v), want %d", len(ls), err, plugins)
	}
	clear(ok)
	for range tries {
		wg.Go(func() { try(Def("A", "", ls[0].ID)) })
	}
	wg.Wait()
	if len(other) > 0 || ok["A"] != packages-plugins {
		t.Fatalf("new Packages: %d recorded (other errors %v), want %d", ok["A"], other, packages-plugins)
	}
	n := 0
	for _, p := range must(s.Plugins(bg, "A")) {
		n += len(p.Packages)
	}
	if n != packages {
		t.Fatalf("A holds %d Packages, want its cap of %d", n, packages)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

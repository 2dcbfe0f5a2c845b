package storetest

import (
	"reflect"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
)

// Durable runs the restart checks of a Store kept in a file. Each call of open opens the
// same file (empty on the first call) and returns the Store with the func that closes it.
func Durable(t *testing.T, open func(t *testing.T) (runner.Store, func())) {
	s, closeStore := open(t)
	MustDefine(t, s, Def("s1", "clock", ""))
	MustDefine(t, s, Def("s2", "panel", ""))
	MustDefine(t, s, Def("s1", "", "clock-1"))
	MustDefine(t, s, Def("s1", "gone", ""))
	if err := s.Remove(bg, "gone-3"); err != nil {
		t.Fatal(err)
	}
	// The latest attempt names the last run and approval request minted, as the runner's do.
	var minted []string
	for _, k := range []runner.Counter{runner.CounterRun, runner.CounterRun, runner.CounterApproval} {
		id, err := s.Mint(bg, k)
		if err != nil {
			t.Fatal(err)
		}
		minted = append(minted, id)
	}
	MustUpdate(t, s, "clock-1", runner.Change{Attempt: Attempt(minted[1], "pkg-3", minted[2]), Current: ptr("pkg-1"), Next: ptr("pkg-3"),
		Grant: "pkg-1", Future: ptr(true), Running: ptr(true)})
	MustUpdate(t, s, "clock-1", runner.Change{Grant: "pkg-3"})
	MustUpdate(t, s, "clock-1", runner.Change{Revoke: "pkg-1"})
	MustUpdate(t, s, "panel-2", runner.Change{Grant: "pkg-2", Future: ptr(true)})
	MustUpdate(t, s, "panel-2", runner.Change{Future: ptr(false)})
	before, err := s.Plugins(bg, "")
	if err != nil {
		t.Fatal(err)
	}
	closeStore()

	s, closeStore = open(t)
	defer closeStore()
	after, err := s.Plugins(bg, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range after {
		if !after[i].Restored {
			t.Errorf("%s read back after a restart has Restored false", after[i].ID)
		}
		after[i].Restored = false
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("after a restart the Store holds\n%+v\nwant what it held before\n%+v", after, before)
	}
	if ps, _ := s.Plugins(bg, "s1"); len(ps) != 1 || ps[0].ID != "clock-1" {
		t.Fatalf("session s1 after a restart sees %v, want [clock-1]", ids(ps))
	}
	for _, session := range []string{"", "s1", "s2"} {
		checkListings(t, s, "a restart", session)
	}
	// Counters continue: no id is reused across the restart, not even a removed Plugin's.
	p, k := MustDefine(t, s, Def("s1", "clock", ""))
	run, _ := s.Mint(bg, runner.CounterRun)
	appr, _ := s.Mint(bg, runner.CounterApproval)
	if got, want := []string{p.ID, k.ID, run, appr}, []string{"clock-4", "pkg-5", "run-3", "approval-2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ids after a restart = %v, want %v", got, want)
	}
	if p.Restored {
		t.Errorf("%s, defined after the restart, has Restored true", p.ID)
	}
	if g := get(t, s, "clock-1"); !g.Restored {
		t.Errorf("clock-1 lost Restored after a read")
	}
}

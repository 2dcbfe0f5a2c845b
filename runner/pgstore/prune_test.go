package pgstore

import (
	"slices"
	"testing"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
	"github.com/google/go-cmp/cmp"
)

// TestPrune keeps, of a Plugin's Packages, the current, the next, the latest attempt's,
// the granted and the newest N, in the database, and its Listing, as Define returns it
// and Listings lists it, counts what is kept; other Plugins are untouched.
func TestPrune(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, &Options{KeepPackages: 2})
	def := func(plugin string) runner.Listing {
		l, _ := storetest.MustDefine(t, s, storetest.Def(map[string]string{"clock-1": "s1", "other-2": "s2"}[plugin], "", plugin))
		return l
	}
	keeps := func(l runner.Listing, want ...string) {
		t.Helper()
		stored, err := s.Plugin(bg, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, packageIDs(stored)); diff != "" {
			t.Fatalf("%s keeps in the database (-want +got):\n%s", l.ID, diff)
		}
		if diff := cmp.Diff(stored.Listing(), l); diff != "" {
			t.Fatalf("%s's Listing as Define returned it (-its Plugin's +returned):\n%s", l.ID, diff)
		}
		ls, err := s.Listings(bg, stored.Session)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(ls, func(x runner.Listing) bool { return x.ID == l.ID })
		if i < 0 {
			t.Fatalf("%s is not listed", l.ID)
		}
		if diff := cmp.Diff(stored.Listing(), ls[i]); diff != "" {
			t.Fatalf("%s's Listing after pruning (-its Plugin's +listed):\n%s", l.ID, diff)
		}
	}
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", "")) // pkg-1
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Current: new("pkg-1")})
	storetest.MustDefine(t, s, storetest.Def("s2", "other", "")) // pkg-2
	def("clock-1")                                               // pkg-3
	def("clock-1")                                               // pkg-4
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Grant: "pkg-3"})
	for range 4 { // clock-1: pkg-5, 7, 9, 11; other-2: pkg-6, 8, 10, 12
		def("clock-1")
		def("other-2")
	}
	o, _ := s.Plugin(bg, "other-2")
	keeps(o.Listing(), "pkg-10", "pkg-12")
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Next: new("pkg-9"), Attempt: storetest.MintAttempt(t, s, "pkg-11")})
	keeps(def("clock-1"), "pkg-1", "pkg-3", "pkg-9", "pkg-11", "pkg-13") // current, granted, next, latest attempt's, newest
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Next: new(""), Attempt: storetest.MintAttempt(t, s, "pkg-13")})
	keeps(def("clock-1"), "pkg-1", "pkg-3", "pkg-13", "pkg-14")
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Revoke: "pkg-3"})
	keeps(def("clock-1"), "pkg-1", "pkg-13", "pkg-14", "pkg-15")
}

func packageIDs(p runner.Plugin) []string {
	var out []string
	for _, k := range p.Packages {
		out = append(out, k.ID)
	}
	return out
}

package sqlstore

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
)

// TestPrune keeps, of a Plugin's Packages, the current, the next, the latest attempt's,
// the granted and the newest N, on disk as in memory; other Plugins are untouched.
func TestPrune(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	s := open(t, path, &Options{KeepPackages: 2})
	def := func(plugin string) runner.Plugin {
		l, _ := storetest.MustDefine(t, s, storetest.Def(map[string]string{"clock-1": "s1", "other-2": "s2"}[plugin], "", plugin))
		p, err := s.Plugin(bg, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(l, p.Listing()) {
			t.Fatalf("Define returned the Listing %+v, want the Plugin's %+v", l, p.Listing())
		}
		return p
	}
	keeps := func(p runner.Plugin, want ...string) {
		t.Helper()
		if got := packageIDs(p); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s keeps %v, want %v", p.ID, got, want)
		}
	}
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", "")) // pkg-1
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Current: ptr("pkg-1")})
	storetest.MustDefine(t, s, storetest.Def("s2", "other", "")) // pkg-2
	def("clock-1")                                               // pkg-3
	def("clock-1")                                               // pkg-4
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Grant: "pkg-3"})
	for range 4 { // clock-1: pkg-5, 7, 9, 11; other-2: pkg-6, 8, 10, 12
		def("clock-1")
		def("other-2")
	}
	o, _ := s.Plugin(bg, "other-2")
	keeps(o, "pkg-10", "pkg-12")
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Next: ptr("pkg-9"), Attempt: storetest.MintAttempt(t, s, "pkg-11")})
	keeps(def("clock-1"), "pkg-1", "pkg-3", "pkg-9", "pkg-11", "pkg-13") // current, granted, next, latest attempt's, newest
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Next: ptr(""), Attempt: storetest.MintAttempt(t, s, "pkg-13")})
	keeps(def("clock-1"), "pkg-1", "pkg-3", "pkg-13", "pkg-14")
	storetest.MustUpdate(t, s, "clock-1", runner.Change{Revoke: "pkg-3"})
	keeps(def("clock-1"), "pkg-1", "pkg-13", "pkg-14", "pkg-15")
	want := []string{"pkg-1", "pkg-13", "pkg-14", "pkg-15"}
	s.Close()
	s2 := open(t, path, nil)
	p, _ := s2.Plugin(bg, "clock-1")
	if got := packageIDs(p); !reflect.DeepEqual(got, want) {
		t.Fatalf("clock-1 on disk keeps %v, want %v", got, want)
	}
}

func packageIDs(p runner.Plugin) []string {
	var out []string
	for _, k := range p.Packages {
		out = append(out, k.ID)
	}
	return out
}

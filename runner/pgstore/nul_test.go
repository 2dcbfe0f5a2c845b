package pgstore

import (
	"errors"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
	"github.com/google/go-cmp/cmp"
)

// TestNULCharacters: what a model or a hostile plugin sends may hold U+0000, which
// PostgreSQL's text cannot. A define holding one is refused with an error that says where
// and how to fix it, and consumes no id; a latest attempt holding one (a JavaScript error
// message, say) is kept exactly; an id or a session name holding one names nothing.
func TestNULCharacters(t *testing.T) {
	s := open(t, pgtest.DSN(t), nil)
	d := storetest.Def("s1", "clock", "")
	d.Client = "return {}\x00"
	_, _, err := s.Define(bg, d)
	if err == nil || !strings.Contains(err.Error(), "define's client half holds a NUL character (U+0000) at byte 9") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("Define with a NUL = %v, want a refusal that says where the NUL is", err)
	}
	p, k := storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
	if p.ID != "clock-1" || k.ID != "pkg-1" {
		t.Fatalf("after the refused define: %s %s, want clock-1 pkg-1", p.ID, k.ID)
	}
	a := storetest.MintAttempt(t, s, "pkg-1")
	a.Error.Message = "thrown: \x00 by the plugin"
	a.Host.Error = "\x00"
	got := storetest.MustUpdate(t, s, "clock-1", runner.Change{Attempt: a})
	read, err := s.Plugin(bg, "clock-1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, read); diff != "" {
		t.Fatalf("a latest attempt holding NULs read back differs (-updated +read):\n%s", diff)
	}
	if read.Latest.Error.Message != a.Error.Message {
		t.Fatalf("the NUL was not kept: %q", read.Latest.Error.Message)
	}
	if _, err := s.Plugin(bg, "clock-1\x00"); !errors.Is(err, runner.ErrNotFound) {
		t.Errorf("Plugin(id with a NUL) = %v, want ErrNotFound", err)
	}
	if _, err := s.Update(bg, "clock-1\x00", runner.Change{Running: new(true)}); !errors.Is(err, runner.ErrNotFound) {
		t.Errorf("Update(id with a NUL) = %v, want ErrNotFound", err)
	}
	if err := s.Remove(bg, "\x00"); !errors.Is(err, runner.ErrNotFound) {
		t.Errorf("Remove(a NUL) = %v, want ErrNotFound", err)
	}
	if _, _, err := s.Define(bg, storetest.Def("s1", "", "clock-1\x00")); !errors.Is(err, runner.ErrNotFound) {
		t.Errorf("Define of a Package of an id with a NUL = %v, want ErrNotFound", err)
	}
	if ls, err := s.Listings(bg, "s1\x00"); err != nil || len(ls) != 0 {
		t.Errorf("Listings(a session with a NUL) = %v, %v; want none", ls, err)
	}
	if ps, err := s.Plugins(bg, "s1\x00"); err != nil || len(ps) != 0 {
		t.Errorf("Plugins(a session with a NUL) = %v, %v; want none", ps, err)
	}
}

package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a testing.TB that keeps the failure instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestX/sub case" }
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg = fmt.Sprintf(format, args...)
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "out.golden")
	if err := os.WriteFile(file, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	same := &recorder{TB: t}
	Check(same, file, []byte("one\ntwo\nthree\n"))
	if same.failed {
		t.Errorf("Check of identical bytes failed: %s", same.msg)
	}

	differs := &recorder{TB: t}
	Check(differs, file, []byte("one\n2\nthree\n"))
	if !differs.failed {
		t.Fatal("Check of different bytes passed")
	}
	for _, want := range []string{"-two\n", "+2\n", " one\n", "(-want +got)", file, "-update", `'^TestX/sub case$'`} {
		if !strings.Contains(differs.msg, want) {
			t.Errorf("the failure does not contain %q:\n%s", want, differs.msg)
		}
	}

	missing := &recorder{TB: t}
	Check(missing, filepath.Join(dir, "none.golden"), []byte("x"))
	if !missing.failed || !strings.Contains(missing.msg, "-update") {
		t.Errorf("Check of a missing file: failed %v, message %q; want a failure that names -update", missing.failed, missing.msg)
	}
}

func TestCheckUpdate(t *testing.T) {
	old := *update
	*update = true
	t.Cleanup(func() { *update = old })
	file := filepath.Join(t.TempDir(), "new", "dir", "out.golden")
	r := &recorder{TB: t}
	Check(r, file, []byte("fresh\n"))
	if r.failed {
		t.Fatalf("Check -update failed: %s", r.msg)
	}
	got, err := os.ReadFile(file)
	if err != nil || string(got) != "fresh\n" {
		t.Errorf("after Check -update the file holds %q (err %v), want %q", got, err, "fresh\n")
	}
}

func TestDiffFinalNewline(t *testing.T) {
	if d := Diff("want", []byte("a\n"), "got", []byte("a\n")); d != "" {
		t.Errorf("Diff of identical texts = %q, want empty", d)
	}
	if d := Diff("want", []byte("a\n"), "got", []byte("a")); d == "" {
		t.Error("Diff does not show a missing final newline")
	}
}

// Package golden compares a test's output with a file under testdata and, with the
// -update flag, rewrites the file instead. It is the one golden helper of the module's
// tests, so that every golden failure reads the same: which file, a unified diff from
// the file (want) to the output (got), and the command that accepts the change.
//
// The diff is go-internal's, the one the verify gate prints for users; go-cmp's output
// is deliberately unstable and is kept for structured values, not for text.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata with the tests' output")

// Updating reports whether the test binary runs with -update, for a test that writes
// golden files of its own making (a directory, a file set) rather than through [Check].
func Updating() bool { return *update }

// Check compares got with the golden file at path (relative to the package directory,
// normally under testdata). With -update it writes got to path, creating its directory,
// and passes. A missing file or a difference fails the test with a unified diff and the
// command that rewrites the file; the test goes on, so one run shows every golden that
// changed.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("golden: %v\nif the output is new, create the file with: %s", err, rerun(t))
		return
	}
	if d := Diff(path, want, "got", got); d != "" {
		t.Errorf("the output differs from %s (-want +got):\n%s\nif the change is intended, accept it with: %s", path, d, rerun(t))
	}
}

// Diff is a unified diff from want to got under the given names, or "" when the two
// are byte-identical. A missing final newline shows as such, so a difference is never
// invisible.
func Diff(wantName string, want []byte, gotName string, got []byte) string {
	return string(diff.Diff(wantName, want, gotName, got))
}

// rerun is the go test command that reruns t alone with -update, from the package
// directory.
func rerun(t testing.TB) string {
	return "go test -run '^" + regexp.QuoteMeta(t.Name()) + "$' -update"
}

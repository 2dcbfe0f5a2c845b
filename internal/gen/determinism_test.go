package gen

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDeterminism generates the same module in two directories: the outputs must be
// byte-identical and mention neither directory.
func TestDeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	var runs []map[string][]byte
	var dirs []string
	for range 2 {
		dir := t.TempDir()
		files := txtarFiles(t, "testdata/determinism.txtar")
		writeModule(t, dir, "example.com/rt", files)
		cfg := &Config{Dir: filepath.Join(dir, "api"), Patterns: []string{"../..."}, Out: ".", Docs: "../docs", Facade: true}
		out, err := Generate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, out)
		dirs = append(dirs, dir)
	}
	a, b := runs[0], runs[1]
	names := func(m map[string][]byte) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if diff := cmp.Diff(names(a), names(b)); diff != "" {
		t.Fatalf("the two runs generated different files (-first +second):\n%s", diff)
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between the two runs:\n%s", name, lineDiff(data, b[name]))
		}
		for _, dir := range append(dirs, filepath.Dir(dirs[0])) {
			if strings.Contains(string(data), dir) {
				t.Errorf("%s mentions the directory %s", name, dir)
			}
		}
	}
	if len(a) != 4 {
		t.Errorf("generated %v", names(a))
	}
}

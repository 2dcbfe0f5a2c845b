package gen

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestHeaderRoundTrip(t *testing.T) {
	for _, cfg := range []*Config{
		{Patterns: []string{"./..."}},
		{Out: "./api", Pkg: "api", Docs: "../docs", Facade: true, Patterns: []string{"../kit", "example.com/x/..."}},
		{Out: "dir with space", Patterns: []string{`we"ird`}},
	} {
		h := Header(cfg.Args())
		m := goHeader.FindStringSubmatch("// " + h)
		if m == nil {
			t.Errorf("header %q does not match the Go header pattern", h)
			continue
		}
		back, err := configFromLine(m[1])
		if err != nil {
			t.Errorf("configFromLine(%q): %v", m[1], err)
			continue
		}
		if diff := cmp.Diff(cfg.Args(), back.Args()); diff != "" {
			t.Errorf("round trip of %q (-want +got):\n%s", h, diff)
		}
		if !mdHeader.MatchString("<!-- " + h + " -->") {
			t.Errorf("header %q does not match the markdown header pattern", h)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	got, err := splitArgs(`go run ../cmd/gen-cordis-api  -out "a b" ./...`)
	if err != nil {
		t.Errorf("splitArgs: %v", err)
	}
	if diff := cmp.Diff([]string{"go", "run", "../cmd/gen-cordis-api", "-out", "a b", "./..."}, got); diff != "" {
		t.Errorf("splitArgs (-want +got):\n%s", diff)
	}
	if _, err := splitArgs(`"open`); err == nil {
		t.Error("an unterminated quote parsed")
	}
}

func TestIsGenerator(t *testing.T) {
	for word, want := range map[string]bool{
		"gen-cordis-api":        true,
		"../cmd/gen-cordis-api": true,
		"github.com/cordiskit/cordiskit/cmd/gen-cordis-api@v0.1.0": true,
		"gen-cordis-api.exe": true,
		"verify-cordis-api":  false,
		"gen-cordis-apis":    false,
	} {
		if got := isGenerator(word); got != want {
			t.Errorf("isGenerator(%q) = %v", word, got)
		}
	}
}

func TestRunDir(t *testing.T) {
	for _, tc := range []struct {
		fileDir, out, want string
		ok                 bool
	}{
		{"/m/generated", ".", "/m/generated", true},
		{"/m/cordisapi", "./cordisapi", "/m", true},
		{"/m/a/b", "a/b", "/m", true},
		{"/m/x", "a/b", "", false},
		{"/m/docs", "../docs", "", false},
	} {
		got, ok := runDir(filepath.FromSlash(tc.fileDir), tc.out)
		if ok != tc.ok || (ok && got != filepath.FromSlash(tc.want)) {
			t.Errorf("runDir(%s, %s) = %s, %v", tc.fileDir, tc.out, got, ok)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, cfg := range []*Config{
		{},
		{Patterns: []string{"/abs"}},
		{Out: "/abs", Patterns: []string{"."}},
		{Pkg: "not valid", Patterns: []string{"."}},
	} {
		if cfg.check() == nil {
			t.Errorf("%+v passed the check", cfg)
		}
	}
	if _, err := parseArgs(nil, io.Discard); err == nil {
		t.Error("no patterns parsed")
	}
}

// TestWrite checks that only changed files are written, and atomically.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{"a/x.go": []byte("x"), "../" + filepath.Base(dir) + "/y.md": []byte("y")}
	written, err := Write(dir, files)
	if err != nil {
		t.Fatalf("first Write: %v", err)
	}
	// Everything is new, so every file is written, under the name it was given.
	if diff := cmp.Diff(slices.Sorted(maps.Keys(files)), written, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Fatalf("first Write wrote (-want +got):\n%s", diff)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "a/x.go"), old, old); err != nil {
		t.Fatal(err)
	}
	files["y.md"] = []byte("changed")
	delete(files, "../"+filepath.Base(dir)+"/y.md")
	written, err = Write(dir, files)
	if err != nil {
		t.Fatalf("second Write: %v", err)
	}
	if diff := cmp.Diff([]string{"y.md"}, written); diff != "" {
		t.Fatalf("second Write wrote (-want +got):\n%s", diff)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a/x.go")); !fi.ModTime().Equal(old) {
		t.Error("an unchanged file was rewritten")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".tmp" {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

package gen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// writeModule lays out a throwaway module in dir: files, a go.mod requiring this
// repository through a replace directive, and this repository's go.sum.
func writeModule(tb testing.TB, dir, module string, files map[string]string) {
	tb.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		tb.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		tb.Fatal(err)
	}
	files["go.sum"] = string(sum)
	files["go.mod"] = "module " + module + "\n\ngo 1.26.0\n\nrequire github.com/cordiskit/cordiskit v0.0.0\n\n" +
		"replace github.com/cordiskit/cordiskit => " + root + "\n"
	for name, content := range files {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// txtarFiles reads the files of a txtar archive.
func txtarFiles(tb testing.TB, file string) map[string]string {
	tb.Helper()
	a, err := txtar.ParseFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range a.Files {
		out[f.Name] = string(f.Data)
	}
	return out
}

package gen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go/format"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordiskit/cordiskit/catalog/scan"
	goldenfile "github.com/cordiskit/cordiskit/internal/golden"
	"github.com/google/go-cmp/cmp"
)

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got)
}

// lineDiff is a unified diff from want to got.
func lineDiff(want, got []byte) string { return goldenfile.Diff("want", want, "got", got) }

// fixtureConfig generates the fixture runtime in testdata/fixture/rt, as if from
// //go:generate gen-cordis-api -out api -docs docs . in that directory.
func fixtureConfig() *Config {
	return &Config{Dir: "../../testdata/fixture/rt", Patterns: []string{"."}, Out: "api", Docs: "docs", Facade: true}
}

func TestGolden(t *testing.T) {
	files, err := Generate(context.Background(), fixtureConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"api/catalog_gen.go", "api/facade_gen.go", "docs/events-and-services.md", "docs/tool-catalog.md"}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(files))); diff != "" {
		t.Errorf("generated files (-want +got):\n%s", diff)
	}
	for _, name := range want {
		got, ok := files[name]
		if !ok {
			t.Errorf("%s was not generated", name)
			continue
		}
		golden(t, "rt/"+path.Base(name)+".golden", got)
	}
	for _, name := range []string{"api/catalog_gen.go", "api/facade_gen.go"} {
		if src := files[name]; src != nil {
			if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
				t.Errorf("%s is not gofmt'ed (err %v):\n%s", name, err, lineDiff(src, formatted))
			}
		}
	}
	t.Run("runs", func(t *testing.T) {
		overlay := map[string][]byte{
			"catalog_gen.go": files["api/catalog_gen.go"],
			"facade_gen.go":  files["api/facade_gen.go"],
		}
		for _, name := range []string{"facade_behavior_test.go", "seam_behavior_test.go"} {
			src, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			overlay[name] = src
		}
		runs(t, "testdata/fixture/rt/api", overlay)
	})
}

// runs tests generated files as if they were in pkgDir (relative to the module root),
// through an overlay, so the test writes nothing into the source tree.
func runs(t *testing.T, pkgDir string, files map[string][]byte) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	replace := map[string]string{}
	for name, src := range files {
		file := filepath.Join(tmp, name)
		if err := os.WriteFile(file, src, 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, pkgDir, name)] = file
	}
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
	overlay := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	// Build the test binary through the overlay, then run it elsewhere: its package
	// directory does not exist.
	bin := filepath.Join(tmp, "api.test")
	cmd := exec.Command("go", "test", "-c", "-vet=off", "-overlay", overlay, "-o", bin, "./"+pkgDir)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the generated code does not build: %v\n%s", err, out)
	}
	run := exec.Command(bin, "-test.count=1", "-test.v")
	run.Dir = tmp
	out, err := run.CombinedOutput()
	if err != nil {
		t.Errorf("the generated code fails its behaviour test: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func TestGoldenDiagnostics(t *testing.T) {
	_, err := Generate(context.Background(), &Config{Dir: "../../testdata/fixture/bad", Patterns: []string{"."}, Out: "api"})
	var ds scan.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("Generate = %v, want diagnostics", err)
	}
	root, _ := filepath.Abs("../..")
	golden(t, "bad/diagnostics.golden", []byte(ds.Rel(root).Error()+"\n"))
}

// TestSyntheticGofmted checks the Go files generated for the synthetic benchmark module
// (every shape the budget's declarations have, at its size) are gofmt'ed: the emitters
// write much of them as text laid out as gofmt would, without running it.
func TestSyntheticGofmted(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the synthetic module")
	}
	dir := t.TempDir()
	writeModule(t, dir, "example.com/synth", syntheticModule())
	cfg := &Config{Dir: filepath.Join(dir, "api"), Patterns: []string{"../..."}, Out: ".", Docs: "../docs", Facade: true}
	files, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{CatalogFile, FacadeFile} {
		src := files[name]
		if src == nil {
			t.Fatalf("%s was not generated", name)
		}
		if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
			t.Errorf("%s is not gofmt'ed (err %v):\n%s", name, err, lineDiff(src, formatted))
		}
	}
}

package gen

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/cordiskit/cordiskit/catalog/scan"
	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/internal/emit"
)

// syntheticModule returns the files of the benchmark module: the declaring packages of
// the performance budget's size ([benchfix.Budget]) and the api package that generates.
func syntheticModule() map[string]string {
	files := benchfix.Budget.Packages()
	files["api/gen.go"] = "// Package api is generated.\npackage api\n\n//go:generate gen-cordis-api -out . -docs ../docs ../...\n"
	return files
}

// BenchmarkPipeline measures, on the synthetic module, a bare packages.Load with the
// scanner's mode, a full generation (load, scan, render, write) and a verification, and
// reports each and the two ratios the budget is about (≤ 1.3).
func BenchmarkPipeline(b *testing.B) {
	dir := b.TempDir()
	writeModule(b, dir, "example.com/synth", syntheticModule())
	apiDir := filepath.Join(dir, "api")
	ctx := context.Background()
	cfg := &Config{Dir: apiDir, Patterns: []string{"../..."}, Out: ".", Docs: "../docs"}

	bare := func() {
		pkgs, err := packages.Load(&packages.Config{Context: ctx, Mode: scan.Mode, Dir: apiDir}, "../...")
		if err != nil || packages.PrintErrors(pkgs) > 0 {
			b.Fatalf("load: %v", err)
		}
	}
	generate := func() {
		files, err := Generate(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Write(apiDir, files); err != nil {
			b.Fatal(err)
		}
	}
	verify := func() {
		rep, err := Verify(ctx, dir, []string{"./..."}, nil)
		if err != nil || !rep.OK() {
			b.Fatalf("verify: %v %v", err, rep)
		}
	}
	// Warm the build cache (export data of the dependencies) and write the outputs once.
	bare()
	generate()

	// Each iteration runs the three back to back, and the medians are compared, so that
	// noise from a busy machine hits all three alike.
	var tLoad, tGen, tVerify []time.Duration
	timed := func(ds *[]time.Duration, f func()) {
		start := time.Now()
		f()
		*ds = append(*ds, time.Since(start))
	}
	b.ResetTimer()
	for b.Loop() {
		timed(&tLoad, bare)
		timed(&tGen, generate)
		timed(&tVerify, verify)
	}
	load, gen, ver := median(tLoad), median(tGen), median(tVerify)
	b.ReportMetric(float64(load.Milliseconds()), "load-ms")
	b.ReportMetric(float64(gen.Milliseconds()), "gen-ms")
	b.ReportMetric(float64(ver.Milliseconds()), "verify-ms")
	b.ReportMetric(float64(gen)/float64(load), "gen/load")
	b.ReportMetric(float64(ver)/float64(load), "verify/load")
	b.Logf("medians of %d runs: bare packages.Load %v, generate %v (%.2f×), verify %v (%.2f×)",
		b.N, load.Round(time.Millisecond), gen.Round(time.Millisecond), float64(gen)/float64(load),
		ver.Round(time.Millisecond), float64(ver)/float64(load))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkGenerate measures Generate alone (load, scan, render; nothing written) on the
// synthetic module, with the façade, as gen-cordis-api -facade runs it.
func BenchmarkGenerate(b *testing.B) {
	dir := b.TempDir()
	writeModule(b, dir, "example.com/synth", syntheticModule())
	ctx := context.Background()
	cfg := &Config{Dir: filepath.Join(dir, "api"), Patterns: []string{"../..."}, Out: ".", Docs: "../docs", Facade: true}
	if _, err := Generate(ctx, cfg); err != nil { // warm the build cache
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Generate(ctx, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender measures the render step alone, each output on its own, on the
// synthetic module's catalog (scanned once): what Generate spends after scan.Load.
func BenchmarkRender(b *testing.B) {
	dir := b.TempDir()
	writeModule(b, dir, "example.com/synth", syntheticModule())
	res, err := scan.Load(context.Background(), &scan.Config{Dir: filepath.Join(dir, "api"), Patterns: []string{"../..."},
		Out: ".", OutFiles: []string{CatalogFile, FacadeFile}})
	if err != nil {
		b.Fatal(err)
	}
	cat := res.Catalog
	if err := emit.Schemas(cat); err != nil {
		b.Fatal(err)
	}
	header := Header([]string{"-out", ".", "-docs", "../docs", "-facade", "../..."})
	for _, bc := range []struct {
		name   string
		render func() ([]byte, error)
	}{
		{"catalog", func() ([]byte, error) { return emit.CatalogGo(cat, "api", header) }},
		{"facade", func() ([]byte, error) { return emit.FacadeGo(cat, "api", header) }},
		{"docs", func() ([]byte, error) {
			return append(emit.EventsAndServices(cat, res.Inherited, header), emit.ToolCatalog(cat, header)...), nil
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := bc.render(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

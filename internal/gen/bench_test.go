package gen

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/cordiskit/cordiskit/catalog/scan"
)

// The synthetic module of the performance budget: 500 events, 200 services of 10 methods
// and 50 tools, over 10 packages.
const (
	benchPkgs     = 10
	benchEvents   = 500
	benchServices = 200
	benchMethods  = 10
	benchTools    = 50
)

// syntheticModule returns the files of the benchmark module.
func syntheticModule() map[string]string {
	files := map[string]string{
		"api/gen.go": "// Package api is generated.\npackage api\n\n//go:generate gen-cordis-api -out . -docs ../docs ../...\n",
	}
	for p := range benchPkgs {
		// Catalog type names are global, so every type carries its package's prefix.
		r := strings.NewReplacer("$P", fmt.Sprintf("P%d", p), "$p", fmt.Sprintf("p%d", p))
		var b strings.Builder
		w := func(format string, args ...any) { b.WriteString(r.Replace(fmt.Sprintf(format, args...))) }
		w("// Package $p is part of the synthetic runtime.\npackage $p\n\nimport (\n\t\"context\"\n\n\t\"github.com/cordiskit/cordiskit/kit\"\n)\n\n")
		w("// $PResult is what listeners return.\ntype $PResult struct {\n\t// OK says whether it worked.\n\tOK bool `json:\"ok\"`\n}\n\n")
		w("// $PItem is a thing services move around.\ntype $PItem struct {\n\t// ID identifies it.\n\tID string `json:\"id\"`\n\t// Tags label it.\n\tTags []string `json:\"tags,omitempty\"`\n\t// Kind says what it is.\n\tKind $PKind `json:\"kind\"`\n}\n\n")
		w("// $PKind is an item's kind.\ntype $PKind string\n\n// The kinds.\nconst (\n\t$PKindA $PKind = \"a\"\n\t$PKindB $PKind = \"b\"\n)\n\n")
		modes := []string{"NewEvent[%s]", "NewParallel[%s]", "NewSerial[%s, bool]", "NewBail[%s, string]", "NewWaterfall[%s, $PResult]"}
		for e := range benchEvents / benchPkgs {
			payload := fmt.Sprintf("$PEv%dPayload", e)
			w("// Ev%d fires when event %d of package $p happens.\nvar Ev%d = kit.%s(\"$p/ev-%d\")\n\n", e, e, e, fmt.Sprintf(modes[e%len(modes)], payload), e)
			w("// %s is the payload of Ev%d.\ntype %s struct {\n\t// Item is the item concerned.\n\tItem *$PItem\n\tCount int\n\tNote string `json:\"note\"`\n}\n\n", payload, e, payload)
		}
		for s := range benchServices / benchPkgs {
			w("// Svc%d is service %d.\nvar Svc%d = kit.NewService[$PService%d](\"$p-svc-%d\")\n\n", s, s, s, s, s)
			w("// $PService%d is an abstract seam.\ntype $PService%d interface {\n", s, s)
			for m := range benchMethods {
				if m%2 == 0 {
					w("\t// Get%d returns an item.\n\tGet%d(ctx context.Context, id string) (*$PItem, error)\n", m, m)
				} else {
					w("\t// List%d lists items.\n\tList%d(kind $PKind) []$PItem\n", m, m)
				}
			}
			w("}\n\n")
		}
		for t := range benchTools / benchPkgs {
			w("// Tool%d is tool %d: it looks items up.\nvar Tool%d = kit.NewTool[$PTool%dInput, $PItem](\"$p_tool_%d\")\n\n", t, t, t, t, t)
			w("// $PTool%dInput is Tool%d's input.\ntype $PTool%dInput struct {\n\t// Query to run.\n\tQuery string `json:\"query\"`\n\t// Limit on results.\n\tLimit *int `json:\"limit,omitempty\"`\n}\n\n", t, t, t)
		}
		w("var _ = context.Background\n")
		files[fmt.Sprintf("p%d/p%d.go", p, p)] = b.String()
	}
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

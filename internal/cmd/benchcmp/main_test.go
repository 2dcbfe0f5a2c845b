package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/cordiskit/cordiskit/internal/benchfix"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestTinyRun runs every group once at a tiny size: every figure must come out with a
// value, a floor where it has one, and a verdict where it has a target.
func TestTinyRun(t *testing.T) {
	var log bytes.Buffer
	b := &bench{cfg: tinyConfig, body: catalogued(benchfix.PluginBody), log: &log}
	res, err := b.run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	want := []string{"mount-p50", "mount-p99", "unmount-p50", "unmount-p99", "heap", "gotojs-1", "gotojs-marginal",
		"gotogo", "gotogo-allocs", "jstogo-raw", "jstogo-empty", "jstogo-net", "jstogo-contract", "jstogo-by-hand", "gen", "verify", "gen-scan", "gen-decls",
		"runner-define-run-p50", "runner-define-run-client-p50", "runner-invoke", "runner-package-heap",
		"sessions-bystander-p50", "sessions-bystander-p99", "sessions-parallel", "sessions-parallel-go"}
	for _, key := range want {
		f, ok := res.byKey[key]
		switch {
		case !ok:
			t.Errorf("figure %s is missing", key)
		case len(f.values) != tinyConfig.rounds || math.IsNaN(f.values[0]):
			t.Errorf("figure %s: values %v", key, f.values)
		case f.floor != "" && len(f.floors) != tinyConfig.rounds:
			t.Errorf("figure %s: floors %v", key, f.floors)
		case !f.target.none() && f.verdict() == "":
			t.Errorf("figure %s has a target but no verdict", key)
		}
	}
	if len(res.order) != len(want) {
		t.Errorf("%d figures, want %d", len(res.order), len(want))
	}
	var out bytes.Buffer
	res.print(&out, tinyConfig.rounds)
	if got := strings.Count("\n"+out.String(), "\n| "); got != len(want)+1 {
		t.Errorf("the table has %d rows, want %d:\n%s", got, len(want)+1, out.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"-only", "mount,bogus"}, {"-rounds"}, {"-body", "does-not-exist.js"}} {
		var stdout, stderr bytes.Buffer
		if code := mainCode(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr:\n%s", args, code, stderr.String())
		}
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, tc := range []struct{ p, want float64 }{{0.5, 5}, {0.99, 10}, {0.1, 1}, {1, 10}, {0.01, 1}} {
		if got := percentile(xs, tc.p); got != tc.want {
			t.Errorf("percentile(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if xs[0] != 5 {
		t.Error("percentile sorted its argument")
	}
	if !math.IsNaN(percentile(nil, 0.5)) {
		t.Error("percentile of nothing is not NaN")
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		name         string
		t            target
		value, floor []float64
		want         string
	}{
		{"ratio met", target{maxRatio: 1.5}, []float64{14, 15, 16}, []float64{10, 10, 10}, "met"},
		{"ratio missed on the median", target{maxRatio: 1.5}, []float64{14, 16, 16}, []float64{10, 10, 10}, "missed"},
		{"value met", target{maxValue: 20}, []float64{3, 30, 4}, []float64{1, 1, 1}, "met"},
		{"value missed", target{maxValue: 20}, []float64{21, 30, 4}, []float64{1, 1, 1}, "missed"},
		{"both: value ok, ratio not", target{maxValue: 1500, maxRatio: 2.5}, []float64{600}, []float64{200}, "missed"},
		{"min ratio met", target{minRatio: 1.7}, []float64{18, 19, 16}, []float64{10, 10, 10}, "met"},
		{"min ratio missed on the median", target{minRatio: 1.7}, []float64{18, 16, 16}, []float64{10, 10, 10}, "missed"},
		{"zero met", target{zero: true}, []float64{0, 0}, []float64{0, 0}, "met"},
		{"zero missed", target{zero: true}, []float64{0, 1, 1}, []float64{0, 0, 0}, "missed"},
		{"no target", target{}, []float64{1}, []float64{1}, ""},
	} {
		f := &figure{target: tc.t}
		for i := range tc.value {
			f.add(tc.value[i], tc.floor[i])
		}
		if got := f.verdict(); got != tc.want {
			t.Errorf("%s: verdict %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestGrowth(t *testing.T) {
	ps := []scalePoint{{n: 1000}, {n: 10000}}
	for _, tc := range []struct {
		y    [2]float64
		want float64
	}{{[2]float64{1, 10}, 1}, {[2]float64{1, 100}, 2}, {[2]float64{5, 5}, 0}} {
		got := growth(ps, func(p scalePoint) float64 {
			if p.n == 1000 {
				return tc.y[0]
			}
			return tc.y[1]
		})
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("growth %v = %v, want %v", tc.y, got, tc.want)
		}
	}
}

func TestRequirements(t *testing.T) {
	gomod := "module x\n\ngo 1.26.0\n\nrequire a v1\n\nrequire (\n\tb v2 // indirect\n\tc v3\n)\n\ntool (\n\tx/y\n)\n"
	want := "require a v1\n\nrequire (\n\tb v2 // indirect\n\tc v3\n)\n\n"
	if got := requirements(gomod); got != want {
		t.Errorf("requirements:\n%q\nwant\n%q", got, want)
	}
}

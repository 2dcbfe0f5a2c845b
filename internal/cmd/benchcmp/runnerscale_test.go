package main

import (
	"bytes"
	"context"
	"math"
	"testing"
)

// TestRunnerScale runs the sweep at a tiny size: every op gets its per-operation row
// beside its floor and its growth exponent, each with a verdict.
func TestRunnerScale(t *testing.T) {
	body := catalogued(`return { name: 'scale-__ID__', apply(ctx) { ctx.on('some/event', () => {}) } }`)
	b := &bench{cfg: tinyConfig, body: body, log: &bytes.Buffer{}, res: newResults()}
	if err := b.runnerScaleAt(context.Background(), []int{3, 6}, 2, false); err != nil {
		t.Fatal(err)
	}
	for _, op := range runnerScaleOps {
		for _, key := range []string{"runnerscale-" + op.key, "runnerscale-" + op.key + "-growth"} {
			f, ok := b.res.byKey[key]
			switch {
			case !ok:
				t.Errorf("figure %s is missing", key)
			case len(f.values) != 1 || math.IsNaN(f.values[0]) || f.values[0] <= 0 && f.floor != "":
				t.Errorf("figure %s: values %v", key, f.values)
			case f.floor != "" && len(f.ratios) != 1:
				t.Errorf("figure %s: no ratio to its floor (floors %v)", key, f.floors)
			case f.verdict() == "":
				t.Errorf("figure %s has no verdict", key)
			}
		}
	}
}

func TestLogLogSlope(t *testing.T) {
	ns := []int{100, 300, 1000}
	for _, tc := range []struct {
		name string
		y    func(n float64) float64
		want float64
	}{
		{"linear", func(n float64) float64 { return 3 * n }, 1},
		{"quadratic", func(n float64) float64 { return n * n }, 2},
		{"constant", func(float64) float64 { return 7 }, 0},
		{"n log n", func(n float64) float64 { return n * math.Log(n) }, 1.176},
	} {
		ps := make([]*scaleRuntime, len(ns))
		for i, n := range ns {
			ps[i] = &scaleRuntime{n: n}
		}
		got := logLogSlope(ps, func(p *scaleRuntime) float64 { return tc.y(float64(p.n)) })
		if math.Abs(got-tc.want) > 0.01 {
			t.Errorf("%s: slope %.3f, want %.2f", tc.name, got, tc.want)
		}
	}
}

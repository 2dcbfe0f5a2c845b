package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// A target is what a figure must meet, judged on the median over the rounds.
type target struct {
	maxRatio float64 // the figure over its floor; 0: none
	minRatio float64 // the figure over its floor, at least (a throughput); 0: none
	maxValue float64 // the figure itself, in its unit; 0: none
	zero     bool    // the figure must be exactly 0 (allocations)
}

func (t target) String() string {
	var parts []string
	if t.maxValue > 0 {
		parts = append(parts, "≤ "+num(t.maxValue))
	}
	if t.zero {
		parts = append(parts, "= 0")
	}
	if t.maxRatio > 0 {
		parts = append(parts, "ratio ≤ "+num(t.maxRatio))
	}
	if t.minRatio > 0 {
		parts = append(parts, "ratio ≥ "+num(t.minRatio))
	}
	return strings.Join(parts, ", ")
}

func (t target) none() bool { return t.maxRatio == 0 && t.minRatio == 0 && t.maxValue == 0 && !t.zero }

// A figure is one row of the table: a quantity measured beside its floor in every round.
type figure struct {
	key    string
	name   string // with its unit: "mount p50, µs"
	floor  string // what the floor is, for the legend
	target target
	// Per round. The ratio is computed within each round, then summarised.
	values, floors, ratios []float64
}

func (f *figure) add(value, floor float64) {
	f.values = append(f.values, value)
	if !math.IsNaN(floor) {
		f.floors = append(f.floors, floor)
		if floor > 0 {
			f.ratios = append(f.ratios, value/floor)
		}
	}
}

// verdict says whether the median meets the target: "met", "missed" or "" (no target).
func (f *figure) verdict() string {
	if f.target.none() || len(f.values) == 0 {
		return ""
	}
	v := spreadOf(f.values).med
	ok := true
	if f.target.maxValue > 0 && v > f.target.maxValue {
		ok = false
	}
	if f.target.zero && v != 0 {
		ok = false
	}
	if f.target.maxRatio > 0 && (len(f.ratios) == 0 || spreadOf(f.ratios).med > f.target.maxRatio) {
		ok = false
	}
	if f.target.minRatio > 0 && (len(f.ratios) == 0 || spreadOf(f.ratios).med < f.target.minRatio) {
		ok = false
	}
	if ok {
		return "met"
	}
	return "missed"
}

// results are the figures of one run, in table order.
type results struct {
	order []*figure
	byKey map[string]*figure
}

func newResults() *results { return &results{byKey: map[string]*figure{}} }

// fig returns the figure for key, declaring it on first use.
func (rs *results) fig(key, name, floor string, t target) *figure {
	if f, ok := rs.byKey[key]; ok {
		return f
	}
	f := &figure{key: key, name: name, floor: floor, target: t}
	rs.byKey[key] = f
	rs.order = append(rs.order, f)
	return f
}

// num formats a value with three significant digits, without exponent.
func num(x float64) string {
	switch ax := math.Abs(x); {
	case math.IsNaN(x):
		return "—"
	case x == 0:
		return "0"
	case ax >= 100:
		return fmt.Sprintf("%.0f", x)
	case ax >= 10:
		return fmt.Sprintf("%.1f", x)
	case ax >= 1:
		return fmt.Sprintf("%.2f", x)
	default:
		return fmt.Sprintf("%.3g", x)
	}
}

func cell(xs []float64, suffix string) string {
	if len(xs) == 0 {
		return "—"
	}
	s := spreadOf(xs)
	if len(xs) == 1 {
		return num(s.med) + suffix
	}
	return fmt.Sprintf("%s%s (%s–%s)", num(s.med), suffix, num(s.lo), num(s.hi))
}

// print writes the table as markdown, then the floors and a one-line summary.
func (rs *results) print(w io.Writer, rounds int) {
	fmt.Fprintf(w, "| figure | cordiskit | floor | ratio | target | |\n|---|---|---|---|---|---|\n")
	for _, f := range rs.order {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n",
			f.name, cell(f.values, ""), cell(f.floors, ""), cell(f.ratios, "×"), f.target, f.verdict())
	}
	fmt.Fprintf(w, "\nmedian (min–max) over %d round(s); ratios are computed within each round.\nfloors:\n", rounds)
	seen := map[string]bool{}
	for _, f := range rs.order {
		if f.floor != "" && !seen[f.floor] {
			seen[f.floor] = true
			fmt.Fprintf(w, "- %s: %s\n", f.name, f.floor)
		}
	}
	var met, missed []string
	for _, f := range rs.order {
		switch f.verdict() {
		case "met":
			met = append(met, f.name)
		case "missed":
			missed = append(missed, f.name)
		}
	}
	fmt.Fprintf(w, "\ntargets: %d met, %d missed", len(met), len(missed))
	if len(missed) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(missed, "; "))
	}
	fmt.Fprintln(w)
}

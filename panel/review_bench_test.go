package panel

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/cordiskit/cordiskit/runner"
)

// BenchmarkReviewOfLargeUpdate times what reviewPackage computes for an update of a 1 MiB
// host half (10,000 lines, every 50th changed) beside its floor, go-internal's diff of the
// same two texts alone: what reading, splitting and bounding the hunks add to the diff.
// Each round times both, alternating which goes first; the medians are reported.
func BenchmarkReviewOfLargeUpdate(b *testing.B) {
	var o, n strings.Builder
	for i := range 10_000 {
		line := fmt.Sprintf("%6d %s\n", i, strings.Repeat("x", 93))
		o.WriteString(line)
		if i%50 == 0 {
			n.WriteString("// changed\n")
		}
		n.WriteString(line)
	}
	base := runner.Package{ID: "pkg-1", Host: o.String()}
	rv := runner.Review{Package: runner.Package{ID: "pkg-2", Host: n.String()}, Base: &base}
	var review, floor []float64
	timeIt := func(f func()) float64 {
		start := time.Now()
		f()
		return float64(time.Since(start).Microseconds()) / 1000
	}
	for i := 0; b.Loop(); i++ {
		r := func() { review = append(review, timeIt(func() { reviewOf(rv) })) }
		d := func() {
			floor = append(floor, timeIt(func() { diff.Diff("old", []byte(base.Host), "new", []byte(rv.Package.Host)) }))
		}
		if i%2 == 0 {
			r()
			d()
		} else {
			d()
			r()
		}
	}
	if h := reviewOf(rv).Halves[0]; h.Added != 200 || h.Removed != 0 {
		b.Fatalf("the review counts +%d −%d, want +200 −0", h.Added, h.Removed)
	}
	median := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
	report(b, "review", "reviewPackage of a 1 MiB update (10,000 lines, 200 added)", median(review), median(floor), "ms", "its go-internal diff alone")
}

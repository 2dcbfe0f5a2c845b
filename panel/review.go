package panel

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/page"
)

// The approval card shows what would run (package doc, "Approvals"): the verb
// reviewPackage answers a Package's halves as text, and for a Plugin that ran or was
// approved before, what changed since that version, as a diff computed here.

// MaxReviewBytes bounds what reviewPackage sends of each half: its source up to this many
// bytes (cut at a line end, Cut set), and its diff lines up to about as many. A Package's
// halves are not bounded by the runner (a model can send megabytes), so without it one
// approval could make the page hold and render all of it.
const MaxReviewBytes = 256 << 10

// diffLineCost is what one diff line costs towards MaxReviewBytes besides its text: its
// JSON (op, line numbers, quotes), so a diff of a million empty lines is bounded too.
const diffLineCost = 32

// The changes of a half since the base version (ReviewHalf.Change).
const (
	changeNew     = "new"     // there is no base: the whole half is new to the person
	changeSame    = "same"    // identical to the base's
	changeChanged = "changed" // Hunks say how
	changeAdded   = "added"   // the base had no such half
	changeRemoved = "removed" // the base had it and this Package does not: Code is ""
)

// PackageReview is the answer of the verb reviewPackage: a Package as its approval card
// shows it.
type PackageReview struct {
	PluginID  string `json:"pluginId"`  // the Plugin
	PackageID string `json:"packageId"` // the Package reviewed
	Name      string `json:"name"`      // its name
	Purpose   string `json:"purpose"`   // its purpose
	// Base is the version the person last let run (runner.Review.Base), which Hunks
	// compare against; nil when there is none.
	Base *ReviewBase `json:"base,omitempty"`
	// Halves are the host half, then the client half; a half that neither this Package
	// nor the base has is left out.
	Halves []ReviewHalf  `json:"halves"`
	Grants runner.Grants `json:"grants"` // the Plugin's grants now
}

// ReviewBase is the version a PackageReview compares against.
type ReviewBase struct {
	PackageID string `json:"packageId"` // the version the person last let run
	Name      string `json:"name"`      // its name
}

// A ReviewHalf is one half as the approval card shows it.
type ReviewHalf struct {
	Half   string `json:"half"`   // "host" or "client"
	Code   string `json:"code"`   // the source, at most MaxReviewBytes of it; "" when removed
	Lines  int    `json:"lines"`  // lines of the whole source
	Bytes  int    `json:"bytes"`  // bytes of the whole source
	Cut    bool   `json:"cut"`    // Code is only the source's first lines
	Change string `json:"change"` // new, same, changed, added or removed
	// Added and Removed count the lines a changed half adds and removes, over the whole
	// diff; Hunks are its hunks with three lines of context, HunksCut set when they stop
	// short of MaxReviewBytes.
	Added    int          `json:"added"`
	Removed  int          `json:"removed"`         // lines the change removes
	Hunks    []ReviewHunk `json:"hunks,omitempty"` // the diff against the base, when changed
	HunksCut bool         `json:"hunksCut"`        // Hunks stop short of MaxReviewBytes
}

// A ReviewHunk is one hunk of a unified diff: the lines it shows and where they are in
// the base (Old) and in the reviewed Package (New). Lines between hunks are unchanged.
type ReviewHunk struct {
	OldStart int          `json:"oldStart"` // its first line in the base
	OldLines int          `json:"oldLines"` // its lines in the base
	NewStart int          `json:"newStart"` // its first line in this Package
	NewLines int          `json:"newLines"` // its lines in this Package
	Lines    []ReviewLine `json:"lines"`    // its lines, context and changes
}

// A ReviewLine is one line of a hunk: Op " " (context), "+" (added) or "-" (removed),
// with its line number in the base (Old, 0 for an added line) and in the reviewed
// Package (New, 0 for a removed one).
type ReviewLine struct {
	Op   string `json:"op"`            // " " (context), "+" (added) or "-" (removed)
	Old  int    `json:"old,omitempty"` // its number in the base; 0 for an added line
	New  int    `json:"new,omitempty"` // its number in this Package; 0 for a removed line
	Text string `json:"text"`          // the line, without its end
}

func sessionOfReview(a *page.ReviewArgs) *string { return &a.Session }

// reviewPackage answers the approval card of a Package of sc's session. The runner's
// ownership check answers another session's Plugin as one that does not exist (handle
// has set Session to sc's session).
func reviewPackage(r *runner.Runner, ctx context.Context, a page.ReviewArgs) (PackageReview, error) {
	rv, err := r.ReviewPackage(ctx, a)
	if err != nil {
		return PackageReview{}, err
	}
	return reviewOf(rv), nil
}

// reviewOf is the approval card's view of rv.
func reviewOf(rv runner.Review) PackageReview {
	k := rv.Package
	w := PackageReview{PluginID: rv.PluginID, PackageID: k.ID, Name: k.Name, Purpose: k.Purpose, Grants: rv.Grants, Halves: []ReviewHalf{}}
	var base runner.Package
	if b := rv.Base; b != nil {
		w.Base = &ReviewBase{PackageID: b.ID, Name: b.Name}
		base = *b
	}
	for _, h := range []struct{ name, code, base string }{{"host", k.Host, base.Host}, {"client", k.Client, base.Client}} {
		if h.code != "" || h.base != "" {
			w.Halves = append(w.Halves, reviewHalfOf(h.name, h.code, h.base, rv.Base != nil))
		}
	}
	return w
}

// reviewHalfOf is half name with source code, compared with base (the base version's
// source of the same half; "" when it had none) when hasBase.
func reviewHalfOf(name, code, base string, hasBase bool) ReviewHalf {
	h := ReviewHalf{Half: name, Bytes: len(code), Lines: lineCount(code)}
	h.Code, h.Cut = cutLines(code, MaxReviewBytes)
	switch {
	case !hasBase:
		h.Change = changeNew
	case code == "":
		h.Change, h.Code, h.Cut = changeRemoved, "", false
		h.Removed = lineCount(base)
	case base == "":
		h.Change, h.Added = changeAdded, h.Lines
	case withEOL(code) == withEOL(base):
		h.Change = changeSame
	default:
		h.Change = changeChanged
		h.Hunks, h.Added, h.Removed, h.HunksCut = hunks(withEOL(base), withEOL(code), MaxReviewBytes)
	}
	return h
}

// lineCount counts the lines of s: its newlines, and a last line without one.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// withEOL is s ending in a newline: a missing one at the end is no change worth showing.
func withEOL(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// cutLines returns s whole when it is at most max bytes, else its longest prefix of
// whole lines within max (of one line longer than max, its first max bytes, never
// splitting a character), and true.
func cutLines(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	if i := strings.LastIndexByte(s[:max], '\n'); i >= 0 {
		return s[:i+1], true
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}

// hunks diffs old and new (each ending in a newline) with go-internal's anchored diff and
// returns its hunks, up to max bytes of lines (each line's text and diffLineCost), the
// lines added and removed over the whole diff, and whether the hunks were cut.
func hunks(old, new string, max int) (hs []ReviewHunk, added, removed int, cut bool) {
	out := strings.TrimSuffix(string(diff.Diff("old", []byte(old), "new", []byte(new))), "\n")
	lines := strings.Split(out, "\n")
	if len(lines) < 3 {
		return nil, 0, 0, false // identical: no diff
	}
	budget := max
	var cur *ReviewHunk
	var o, n int // the next line numbers in old and new
	// After the three header lines ("diff", "---", "+++"), a line is a hunk's header
	// ("@@ …") or one of its lines, which start with " ", "+" or "-"; both texts end in
	// a newline, so there is no "\ No newline at end of file".
	for _, s := range lines[3:] {
		if strings.HasPrefix(s, "@@ ") {
			var hk ReviewHunk
			if _, err := fmt.Sscanf(s, "@@ -%d,%d +%d,%d @@", &hk.OldStart, &hk.OldLines, &hk.NewStart, &hk.NewLines); err != nil {
				return hs, added, removed, true // cannot happen: diff writes every header so
			}
			o, n = max1(hk.OldStart), max1(hk.NewStart)
			cur = nil
			if !cut {
				hs = append(hs, hk)
				cur = &hs[len(hs)-1]
			}
			continue
		}
		if s == "" {
			continue // cannot happen: every line has its op
		}
		l := ReviewLine{Op: s[:1], Text: s[1:]}
		switch l.Op {
		case "+":
			added++
			l.New = n
			n++
		case "-":
			removed++
			l.Old = o
			o++
		default:
			l.Old, l.New = o, n
			o++
			n++
		}
		if cur == nil {
			continue
		}
		if budget -= len(l.Text) + diffLineCost; budget < 0 {
			cut, cur = true, nil
			continue
		}
		cur.Lines = append(cur.Lines, l)
	}
	return hs, added, removed, cut
}

// max1 is a hunk's first line number: an empty side's start is 0 ("@@ -0,0 …").
func max1(n int) int { return max(n, 1) }

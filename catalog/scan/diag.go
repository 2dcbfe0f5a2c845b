package scan

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The rules a [Diagnostic] can name.
const (
	RuleLoad        = "load"        // the packages do not load or type-check
	RuleName        = "name"        // a name or key is not a non-empty constant string
	RuleDoc         = "doc"         // a declaration, method or type has no doc comment
	RuleType        = "type"        // a referenced type cannot be documented
	RuleUnsupported = "unsupported" // a shape that cannot cross into JavaScript
	RuleDuplicate   = "duplicate"   // two declarations share a name, key or type name
	RuleOutput      = "output"      // the output package declares something, or a declaring package imports it
)

// A Diagnostic is one problem found in the source, with its position.
type Diagnostic struct {
	Path      string // file name; absolute as Load returns it, see [Diagnostics.Rel]
	Line, Col int
	Rule      string
	Message   string // what is wrong and how to fix it
}

// String formats the diagnostic as "path:line:col: [rule] message".
func (d Diagnostic) String() string {
	if d.Line == 0 {
		return fmt.Sprintf("%s: [%s] %s", d.Path, d.Rule, d.Message)
	}
	return fmt.Sprintf("%s:%d:%d: [%s] %s", d.Path, d.Line, d.Col, d.Rule, d.Message)
}

// Diagnostics is a list of problems. As an error it prints one per line, sorted.
type Diagnostics []Diagnostic

func (ds Diagnostics) Error() string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// Err returns ds sorted as an error, or nil when there are none.
func (ds Diagnostics) Err() error {
	if len(ds) == 0 {
		return nil
	}
	ds.Sort()
	return ds
}

// Sort orders the diagnostics by position, then rule and message, and drops duplicates.
func (ds *Diagnostics) Sort() {
	slices.SortFunc(*ds, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
	*ds = slices.Compact(*ds)
}

// Rel returns a sorted copy of ds whose paths are relative to dir, as a command run in
// dir would print them. Paths outside dir keep their "../" prefix; unrelated volumes stay
// absolute.
func (ds Diagnostics) Rel(dir string) Diagnostics {
	out := slices.Clone(ds)
	for i := range out {
		if !filepath.IsAbs(out[i].Path) {
			continue
		}
		if rel, err := filepath.Rel(dir, out[i].Path); err == nil {
			out[i].Path = filepath.ToSlash(rel)
		}
	}
	out.Sort()
	return out
}

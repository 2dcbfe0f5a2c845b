package scan

import (
	"strings"
	"testing"
)

func TestSynopsis(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"", ""},
		{"Get returns the value.", "Get returns the value."},
		{"Get returns the value. It never blocks.", "Get returns the value."},
		{"Get returns\nthe value. It never blocks.", "Get returns the value."},
		// Abbreviations and numbers are not sentence ends.
		{"Name returns the name, e.g. \"agent/error\". It is constant.", `Name returns the name, e.g. "agent/error".`},
		{"Name returns the name (e.g. agent/error). It is constant.", "Name returns the name (e.g. agent/error)."},
		{"Tools lists the tools, i.e. what you can call. More.", "Tools lists the tools, i.e. what you can call."},
		{"Flush persists files, caches, etc. and waits for them. More.", "Flush persists files, caches, etc. and waits for them."},
		{"Flush persists files, caches, etc. More follows.", "Flush persists files, caches, etc."},
		{"Scale multiplies by 1.5 at most. More.", "Scale multiplies by 1.5 at most."},
		{"Zone is a U.S. time zone name. More.", "Zone is a U.S. time zone name."},
		{"Compare compares two values, cf. Less. More.", "Compare compares two values, cf. Less."},
		{"Since needs Go 1.26. Earlier versions fail.", "Since needs Go 1.26."},
		{"Getenv wraps os.Getenv. It trims.", "Getenv wraps os.Getenv."},
		{"Pick is the default, e.g., when unset. More.", "Pick is the default, e.g., when unset."},
		// A terminator may be followed by closers; other terminators end sentences too.
		{"Wait blocks (see Close.) It may fail.", "Wait blocks (see Close.)"},
		{"Ready reports \"done.\" Then it stops.", "Ready reports \"done.\""},
		{"Why not? Because it blocks.", "Why not?"},
		{"Cond is a ? b : c. More.", "Cond is a ? b : c."},
		{"Wait stops at x != nil. More.", "Wait stops at x != nil."},
		// A sentence that starts with a lowercase identifier still ends the previous one.
		{"SetTimeout calls fn once. cancel stops it.", "SetTimeout calls fn once."},
		// The first paragraph bounds the sentence.
		{"Get returns the value\n\nIt never blocks.", "Get returns the value"},
		{"Get returns the value\n  \nIt never blocks.", "Get returns the value"},
		// Doc links render as their text; no prefix empties a summary.
		{"Wrap wraps a [Fiber]. More.", "Wrap wraps a [Fiber]."},
		{"Author returns the author. More.", "Author returns the author."},
		{"Copyright returns the notice.", "Copyright returns the notice."},
	} {
		if got := synopsis(tc.doc); got != tc.want {
			t.Errorf("synopsis(%q)\n\t= %q\n\twant %q", tc.doc, got, tc.want)
		}
	}
}

// FuzzSynopsis checks that any comment text gives a one-line summary cut from the
// comment's first paragraph, without panicking.
func FuzzSynopsis(f *testing.F) {
	for _, s := range []string{"A b. C", "e.g. x. Y", "(see X.) Y", "etc. and", "a.\n\nb", "。x", "x.’ y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if first := firstSentence(text); !strings.HasPrefix(text, first) {
			t.Fatalf("firstSentence(%q) = %q, not a prefix", text, first)
		}
		if s := synopsis(text); strings.ContainsAny(s, "\n\r") {
			t.Fatalf("synopsis(%q) = %q spans lines", text, s)
		}
	})
}

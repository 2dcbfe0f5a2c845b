package jslex

import "testing"

func TestReaches(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want Reach
	}{
		{`return (ctx) => { ctx.on('x', () => 1) }`, 0},
		{`return async (ctx) => {}`, ReachAsync},
		{`return { async apply(ctx) {} }`, ReachAsync},
		{`return function () { return arguments.length }`, ReachAsync},
		{`const s = '\u0061'`, ReachAsync},
		{`function* g() {}`, ReachGenerator},
		{`return { *items() {} }`, ReachGenerator},
		{`x = 2 * 3; y = async () => 1`, ReachGenerator | ReachAsync},
		// A comment heading the code makes nothing; after the first token a match counts.
		{"// the BODY of an async function\n/* a *generator */ return (ctx) => {}", 0},
		{"\ufeff\u00a0// async\r\n  return (ctx) => {} // async", ReachAsync},
		{"// a note\u2028arguments.length", ReachAsync}, // U+2028 ends a line comment
		{"/* async", 0}, // does not parse
		{"return 1 /* async */", ReachGenerator | ReachAsync},
	} {
		if got := Reaches(tt.src); got != tt.want {
			t.Errorf("Reaches(%q) = %b, want %b", tt.src, got, tt.want)
		}
	}
}

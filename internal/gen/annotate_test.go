package gen

import "testing"

func TestAnnotationString(t *testing.T) {
	for _, c := range []struct {
		a    annotation
		want string
	}{
		{annotation{file: "api/catalog_gen.go", line: 35, title: "stale generated file", msg: "run go generate ./api"},
			"::error file=api/catalog_gen.go,line=35,title=stale generated file::run go generate ./api"},
		// A property ends at ',' and ':'; the message at a newline; '%' starts an escape.
		{annotation{file: "a,b:c%.go", line: 4, col: 9, title: "verify-cordis-api [load]", msg: "100% broken:\nline two\r"},
			"::error file=a%2Cb%3Ac%25.go,line=4,col=9,title=verify-cordis-api [load]::100%25 broken:%0Aline two%0D"},
		// No file: no line either.
		{annotation{line: 3, title: "t", msg: "m"}, "::error title=t::m"},
	} {
		if got := c.a.String(); got != c.want {
			t.Errorf("annotation\n got %s\nwant %s", got, c.want)
		}
	}
}

func TestFirstDiff(t *testing.T) {
	for _, c := range []struct {
		have, want string
		line       int
	}{
		{"a\nb\nc\n", "a\nB\nc\n", 2},
		{"a\nb\nc\n", "x\n", 1},
		{"a\nb\n", "a\nb\nc\n", 2}, // lines added at the end: the last line on disk
		{"a\nb", "a\nb\nc\n", 2},   // no final newline
		{"a\nb\nc\n", "a\nb\n", 3}, // lines removed at the end
		{"", "a\n", 1},             // an empty file
		{"a\nbc\n", "a\nbd\n", 2},  // a change inside a line
		{"a\r\nb\r\n", "a\r\nc\r\n", 2},
	} {
		if got := firstDiff([]byte(c.have), []byte(c.want)); got != c.line {
			t.Errorf("firstDiff(%q, %q) = %d, want %d", c.have, c.want, got, c.line)
		}
	}
}

package jslex

import (
	"strings"
	"testing"
)

// FuzzNesting: the lexer and the checks never panic, and a refusal points inside the
// code.
func FuzzNesting(f *testing.F) {
	for _, seed := range []string{"x = ((1))", "`a${`b${c}`}`", "a = b\n/re/g.test(c)", "{} / ((1 /2))", "'\\", "/* x", "x = .5?.5:1", "if (a) b; else if (c) d"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, code string) {
		if ne := CheckNesting(code, 3, 40); ne != nil {
			if ne.Off < 0 || ne.Off >= len(code) {
				t.Fatalf("%q: offset %d outside the code", code, ne.Off)
			}
			if line, col := Position(code, ne.Off); line < 1 || col < 1 {
				t.Fatalf("%q: position %d:%d", code, line, col)
			}
		}
		_ = BracketProblem(code)
		_ = JSONDeeper(code, 3)
	})
}

func TestCheckNesting(t *testing.T) {
	for _, tt := range []struct {
		code string
		want string // "" for no refusal, else the token's text at the offset reported
	}{
		{"x = ((1))", ""},
		{"x = ((((1))))", "("},
		{"x = '((((((('", ""},                     // brackets in a string
		{"x = `${`${`${`${a}`}`}`}`", "${"},       // template substitutions nest
		{"// ((((((((\nx = 1", ""},                // brackets in a comment
		{"x = /((((((/.test(a)", "/((((((/"},      // a regular expression's groups count
		{"x = a\n+ a\n+ a\n+ a\n+ a", "+"},        // a chain continues across line breaks
		{"a = 1\nb = 2\nc = 3\nd = 4\ne = 5", ""}, // statements restart it
	} {
		ne := CheckNesting(tt.code, 4, 1000)
		got := ""
		if ne != nil {
			got = tt.code[ne.Off:]
			got = got[:max(1, strings.IndexAny(got, " \n.)1a}`"))]
			if !strings.Contains(ne.Msg, "nests deeper than 4 levels") {
				t.Errorf("%q: message %q", tt.code, ne.Msg)
			}
		}
		if got != tt.want {
			t.Errorf("CheckNesting(%q) refuses at %q, want %q", tt.code, got, tt.want)
		}
	}
}

func TestBracketProblem(t *testing.T) {
	for _, tt := range []struct{ code, want string }{
		{"return { a: [1, (2)] }", ""},
		{"return { a: '}' }", ""},
		{"return {\n  a: 1\n});", "the `)` at line 3, column 2 has no matching `(`"},
		{"f(a]", "the `]` at line 1, column 4 does not match the `(` at line 1, column 2"},
		{"if (x) {\n  é(", "the `(` at line 2, column 4 is never closed"},
		{"x = `a${b}", "a template literal (`) is never closed"},
		{"x = `a${b", "the `{` at line 1, column 7 is never closed"}, // a ${ is named as its {
		{"/* x", "a /* comment is never closed"},
	} {
		if got := BracketProblem(tt.code); got != tt.want {
			t.Errorf("BracketProblem(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

func TestJSONDeeper(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{`[[1]]`, false},
		{`[[[1]]]`, true},
		{`{"a":{"b":[]}}`, true},
		{`["[[[[", "\"[[[["]`, false}, // brackets in strings, after an escaped quote
	} {
		if got := JSONDeeper(tt.text, 2); got != tt.want {
			t.Errorf("JSONDeeper(%q, 2) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

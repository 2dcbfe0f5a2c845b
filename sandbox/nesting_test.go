package sandbox

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
)

var nestingFull = flag.Bool("nesting.full", false, "TestNestingWorstShapesCompile: the worst shapes at the default limits and up to 8 MiB (slow)")

// A nestShape writes mount code that nests n levels deep in one way. Every shape is one
// goja parses or compiles by recursion; the unit is the text of one level.
type nestShape struct {
	name string
	gen  func(n int) string
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

var nestShapes = []nestShape{
	{"parens", func(n int) string { return "x = " + rep("(", n) + "1" + rep(")", n) }},
	{"arrays", func(n int) string { return "x = " + rep("[", n) + rep("]", n) }},
	{"objects", func(n int) string { return "x = " + rep("{a:", n) + "1" + rep("}", n) }},
	{"blocks", func(n int) string { return rep("{", n) + rep("}", n) }},
	{"templates", func(n int) string { return "x = " + rep("`${", n) + "1" + rep("}`", n) }},
	{"calls", func(n int) string { return "x = f" + rep("(f", n) + rep(")", n) }},
	{"functions", func(n int) string { return rep("function f() {", n) + rep("}", n) }},
	{"arrow blocks", func(n int) string { return "x = " + rep("() => {", n) + rep("}", n) }},
	{"arrows", func(n int) string { return "x = " + rep("x => ", n) + "1" }},
	{"async arrows", func(n int) string { return "x = " + rep("async x => ", n) + "1" }},
	{"classes", func(n int) string { return "x = " + rep("class { m() { return ", n) + "1" + rep("} }", n) }},
	{"destructuring", func(n int) string { return "var " + rep("[", n) + "a" + rep("]", n) + " = x" }},
	{"spread", func(n int) string { return "x = " + rep("[...", n) + "a" + rep("]", n) }},
	{"default params", func(n int) string { return "x = " + rep("(a = ", n) + "1" + rep(") => 1", n) }},
	{"not", func(n int) string { return "x = " + rep("!", n) + "x" }},
	{"negation", func(n int) string { return "x = " + rep("- ", n) + "x" }},
	{"increment", func(n int) string { return "x = " + rep("++", n) + "x" }},
	{"typeof", func(n int) string { return "x = " + rep("typeof ", n) + "x" }},
	{"new", func(n int) string { return "x = " + rep("new ", n) + "X" }},
	{"await", func(n int) string { return "x = " + rep("await ", n) + "1" }},
	{"yield", func(n int) string { return "function* g() { x = " + rep("yield ", n) + "1 }" }},
	{"assignment", func(n int) string { return rep("a = ", n) + "1" }},
	{"assignment lines", func(n int) string { return rep("a =\n", n) + "1" }},
	{"conditional", func(n int) string { return "x = " + rep("a ? b : ", n) + "c" }},
	{"exponent", func(n int) string { return "x = " + rep("a ** ", n) + "1" }},
	{"sum", func(n int) string { return "x = 1" + rep("+1", n) }},
	{"sum lines", func(n int) string { return "x = a" + rep("\n+ a", n) }},
	{"or", func(n int) string { return "x = a" + rep("||a", n) }},
	{"members", func(n int) string { return "x = a" + rep(".a", n) }},
	{"call chain", func(n int) string { return "x = f" + rep("()", n) }},
	{"index chain", func(n int) string { return "x = a" + rep("[0]", n) }},
	{"if", func(n int) string { return rep("if (x) ", n) + ";" }},
	{"if lines", func(n int) string { return rep("if (x)\n", n) + ";" }},
	{"if blocks", func(n int) string { return rep("if (x) {", n) + rep("}", n) }},
	{"else if", func(n int) string { return rep("if (x) a; else ", n) + ";" }},
	{"else if lines", func(n int) string { return rep("if (x) a\nelse ", n) + ";" }},
	{"else if blocks", func(n int) string { return rep("if (x) {}\nelse ", n) + "{}" }},
	{"for", func(n int) string { return rep("for (;;) ", n) + ";" }},
	{"while", func(n int) string { return rep("while (x)\n", n) + ";" }},
	{"do", func(n int) string { return rep("do ", n) + ";" + rep(" while (x)", n) }},
	{"labels", func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "l%d: ", i)
		}
		return b.String() + ";"
	}},
	{"try", func(n int) string { return rep("try {", n) + rep("} finally {}", n) }},
	{"unicode spaces", func(n int) string { return "function* g() { x = " + rep("yield\u00a0", n) + "1 }" }},
	// A guessed regular expression must not hide brackets the parser sees as code.
	{"regex guess", func(n int) string { return "x = {} / " + rep("(", n) + "1 /2" + rep(")", n) }},
}

// nestingPeak returns the deepest nesting checkNesting measures in code.
func nestingPeak(code string) int {
	c := &nestingCheck{max: 1 << 30, maxWork: 1 << 62, stack: []level{{}}}
	c.run(code)
	return c.peak
}

// TestNestingShapes: every shape is measured as deep as it nests, within a small factor, so
// the cap applies to all of them; and the same shapes a few levels deep still compile.
func TestNestingShapes(t *testing.T) {
	for _, s := range nestShapes {
		t.Run(s.name, func(t *testing.T) {
			for _, n := range []int{10, 1000} {
				if got := nestingPeak(s.gen(n)); got < n || got > 4*n+8 {
					t.Errorf("depth %d measured as %d", n, got)
				}
			}
			if _, err := compileMount("dyn-1", s.gen(10)); err != nil && s.name != "increment" { // ++++x parses, then fails as JavaScript

				t.Errorf("10 levels do not compile: %v", err)
			}
		})
	}
}

// TestNestingDeepSourceRefused mounts every shape written out a few MB deep, deep enough
// that goja's recursive parser or compiler overflows the Go stack (a fatal error) without
// the check, so it runs in a child process. Each is refused with a positioned
// *SyntaxError that says how to flatten the code, quickly, and the loop keeps serving.
func TestNestingDeepSourceRefused(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newHost(t, nil)
	for _, s := range nestShapes {
		t.Run(s.name, func(t *testing.T) {
			code := s.gen(1)
			n := max(DefaultMaxBytes/len(code)-2, 1)
			for code = s.gen(n); len(code) > DefaultMaxBytes; code = s.gen(n) {
				n = n * 9 / 10
			}
			start := time.Now()
			_, err := h.loop.Compile("dyn-1", code)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%d levels (%d bytes): got %v, want a *SyntaxError", n, len(code), err)
			}
			if !strings.Contains(se.Message, "nests deeper than 500 levels") || !strings.Contains(se.Hint, "JSON.parse") {
				t.Errorf("got %v", err)
			}
			if msg := err.Error(); len(msg) > 2000 || !strings.Contains(msg, fmt.Sprintf("line %d, column %d", se.Line, se.Column)) {
				t.Errorf("message of %d bytes: %.300s", len(msg), msg)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("refusing took %v", d)
			}
		})
	}
	h.serving()
}

// FuzzNesting: the lexer and the nesting check never panic, and a refusal points inside
// the code.
func FuzzNesting(f *testing.F) {
	for _, seed := range []string{"x = ((1))", "`a${`b${c}`}`", "a = b\n/re/g.test(c)", "{} / ((1 /2))", "'\\", "/* x", "x = .5?.5:1", "if (a) b; else if (c) d"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, code string) {
		if ne := checkNesting(code, 3, 40); ne != nil {
			if ne.off < 0 || ne.off >= len(code) {
				t.Fatalf("%q: offset %d outside the code", code, ne.off)
			}
			_ = nestingSyntaxError("dyn-1", code, ne).Error()
		}
		_ = bracketProblem(code)
	})
}

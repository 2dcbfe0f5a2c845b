package sandbox

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/cordiskit/cordiskit/sandbox/internal/jslex"
)

// nestingWork returns the nesting work jslex.CheckNesting measures in code.
func nestingWork(code string) int {
	_, work := jslex.Measure(code)
	return work
}

var nestingFull = flag.Bool("nesting.full", false, "TestNestingWorstShapesCompile: the worst shapes at the default limits and up to 8 MiB (slow)")

// A nestShape writes mount code that nests n levels deep in one way. Every shape is one
// goja parses or compiles by recursion; the unit is the text of one level.
type nestShape struct {
	name string
	gen  func(n int) string
}

// reparsed are the shapes goja parses twice per level (a parameter list is first parsed as
// an expression): exponential, so deep ones are refused by the work bound.
var reparsed = map[string]bool{"default params": true, "destructured params": true, "async params": true}

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
	{"destructured params", func(n int) string { return "x = " + rep("([a = ", n) + "1" + rep("]) => 1", n) }},
	{"async params", func(n int) string { return "x = " + rep("async (a = ", n) + "1" + rep(") => 1", n) }},
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

// nestingPeak returns the deepest nesting jslex.CheckNesting measures in code.
func nestingPeak(code string) int {
	peak, _ := jslex.Measure(code)
	return peak
}

// TestNestingShapes: every shape is measured as deep as it nests, within a small factor, so
// the cap applies to all of them; the same shapes a few levels deep compile, and so do they
// as deep as the default cap lets them be (goja's recursion at the cap fits a goroutine's
// stack, with -race too).
func TestNestingShapes(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	for _, s := range nestShapes {
		t.Run(s.name, func(t *testing.T) {
			n := DefaultMaxNesting
			for nestingPeak(s.gen(n)) > DefaultMaxNesting {
				n--
			}
			if _, err := l.Compile("dyn-1", s.gen(n)); err != nil && !(s.name == "increment" || reparsed[s.name] && strings.Contains(err.Error(), "too large for how deeply it nests")) {
				t.Errorf("%d levels, at the cap: %.300v", n, err)
			}
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
// *SyntaxError that says how to flatten the code, quickly, and the sandbox keeps serving.
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
			_, err := h.sb.Compile("dyn-1", code)
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

// A worstShape writes k repetitions (or k statements of filling) of a shape nested d deep:
// one goja compiles in time quadratic in its depth.
type worstShape struct {
	name string
	gen  func(d, k int) string
}

var worstShapes = []worstShape{
	{"blocks", func(d, k int) string { return rep(rep("{", d)+rep("}", d), k) }},
	{"functions", func(d, k int) string { return rep(rep("function f() {", d)+rep("}", d), k) }},
	{"arrow blocks", func(d, k int) string { return rep("x = "+rep("() => {", d)+rep("}", d)+";", k) }},
	{"arrows", func(d, k int) string { return rep("x = "+rep("x => ", d)+"1;", k) }},
	{"sums", func(d, k int) string { return rep("x = a"+rep("+a", d)+";", k) }},
	{"negations", func(d, k int) string { return rep("x = "+rep("- ", d)+"a;", k) }},
	{"labels", func(d, k int) string {
		var b strings.Builder
		for i := range d {
			fmt.Fprintf(&b, "l%d: ", i)
		}
		return rep("{"+b.String()+";}", k)
	}},
	{"filled functions", func(d, k int) string { return rep("function f() {", d) + rep("a;", k) + rep("}", d) }},
	{"filled arrows", func(d, k int) string { return "x = " + rep("() => {", d) + rep("a;", k) + rep("}", d) }},
}

// TestNestingWorstShapesCompile: the shapes goja compiles in quadratic time, as large as the
// limits let them be, compile within a small multiple of the time bounds: compiling runs
// before any bound applies, so its work is what Limits.MaxNestingWork caps. By default it
// runs at an eighth of the default work and a sixteenth of the default size; with
// -nesting.full, at the defaults (the measurement behind DefaultMaxNestingWork).
func TestNestingWorstShapesCompile(t *testing.T) {
	lim := Limits{MaxNestingWork: DefaultMaxNestingWork / 8, MaxBytes: DefaultMaxBytes / 16}
	if *nestingFull {
		lim = Limits{}
	}
	l, _ := newTestSandbox(t, &Options{Limits: &lim})
	for _, s := range worstShapes {
		t.Run(s.name, func(t *testing.T) {
			code, d := worstAtLimits(s, l.Limits())
			if _, err := l.Compile("dyn-1", code); err != nil {
				t.Fatalf("%d bytes at the limits do not compile: %.500v", len(code), err)
			}
			t.Logf("depth %d, %d bytes, nesting work %d", d, len(code), nestingWork(code))
		})
	}
}

// worstAtLimits is shape s as deep as lim.MaxNesting allows, repeated until its nesting
// work or its size reaches lim's bound, and the depth it has.
func worstAtLimits(s worstShape, lim Limits) (code string, depth int) {
	d := lim.MaxNesting
	for nestingPeak(s.gen(d, 2)) > lim.MaxNesting {
		d--
	}
	one, two := s.gen(d, 1), s.gen(d, 2)
	unit := nestingWork(two) - nestingWork(one)
	k := max(min((lim.MaxNestingWork-nestingWork(one))/unit, (lim.MaxBytes-len(one))/(len(two)-len(one))), 1)
	return s.gen(d, k), d
}

// BenchmarkNestingWorstShapesCompile compiles each worst shape at the default limits and
// reports the compile time as a share of DefaultVMTimeout (vm-share), the bound evaluation
// runs under: the limits are set so that code they let through compiles well within it.
func BenchmarkNestingWorstShapesCompile(b *testing.B) {
	l, _ := newTestSandbox(b, nil)
	for _, s := range worstShapes {
		code, _ := worstAtLimits(s, l.Limits())
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(code)))
			for b.Loop() {
				if _, err := l.Compile("dyn-1", code); err != nil {
					b.Fatalf("%d bytes at the limits do not compile: %.500v", len(code), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(DefaultVMTimeout), "vm-share")
		})
	}
}

// TestNestingReparsedParams: goja parses a parameter list that is not a plain list of names
// twice, so 30 nested default parameters (a few hundred bytes) would take it hours; the work
// bound counts the second parse and refuses them at once.
func TestNestingReparsedParams(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	for name := range reparsed {
		for _, s := range nestShapes {
			if s.name != name {
				continue
			}
			start := time.Now()
			_, err := l.Compile("dyn-1", s.gen(30))
			if err == nil || !strings.Contains(err.Error(), "too large for how deeply it nests") {
				t.Errorf("%s: got %.300v", name, err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("%s: refusing took %v", name, d)
			}
		}
	}
	// A few levels are fine.
	if _, err := l.Compile("dyn-1", "const f = ({ a = 1 } = {}, [b] = [2], c = (d = 3) => d) => a + b + c()\nreturn (ctx) => {}"); err != nil {
		t.Fatal(err)
	}
}

// TestJSONParseNesting: goja's JSON.parse recurses once per level, so deep text overflowed
// the Go stack (a fatal error: run in a child process). The realm's JSON.parse refuses text
// nested deeper than Limits.MaxNesting with a SyntaxError mount code can catch, and parses
// the rest as before (reviver included).
func TestJSONParseNesting(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newHost(t, &Timeouts{Call: 5 * time.Second}) // building 10 MB of text takes a while under -race
	m, f := h.mustMount(`return (ctx) => {}`)
	defer h.unmount(m, f)
	for _, tt := range []struct{ src, want string }{
		{`JSON.parse('['.repeat(5e6) + ']'.repeat(5e6))`, "SyntaxError: JSON.parse: the text nests deeper than 500 levels"},
		{`try { JSON.parse('{"a":'.repeat(600) + '1' + '}'.repeat(600)) } catch (e) { e instanceof SyntaxError }`, "true"},
		{`JSON.stringify(JSON.parse('['.repeat(500) + ']'.repeat(500))).length`, "1000"},
		{`JSON.parse('{"a":[1,"[[[["]}', (k, v) => typeof v === 'number' ? v + 1 : v).a[0]`, "2"},
		{`JSON.parse({ toString: () => '[1]' })[0]`, "1"},
		{`JSON.parse('"\\"[[[["').length`, "5"}, // brackets in a string, after an escaped quote
	} {
		if got := h.eval(m, tt.src); !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %s, want %s", tt.src, got, tt.want)
		}
	}
	h.serving()
}

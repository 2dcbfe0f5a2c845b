package sandbox_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/cordiskit/cordiskit/sandbox"
)

// TestCompilersMeasureNesting: eval and every Function constructor refuse deeply nested
// text built at run time with a SyntaxError mount code can catch, instead of overflowing
// goja's parser (a fatal error: the test runs in a child process).
func TestCompilersMeasureNesting(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	sb := sandbox.New(nil)
	defer sb.Close(context.Background())
	deep := `'('.repeat(2e6) + '1' + ')'.repeat(2e6)`
	for _, tc := range []struct{ name, call string }{
		{"eval", "eval(" + deep + ")"},
		{"indirect eval", "(0, eval)(" + deep + ")"},
		{"Function", "Function('return ' + " + deep + ")"},
		{"new Function", "new Function('a', 'return ' + " + deep + ")"},
		{"Function parameters", "Function('a = ' + " + deep + ", 'return a')"},
		{"via a function's constructor", "(function () {}).constructor('return ' + " + deep + ")"},
		{"AsyncFunction", "(async function () {}).constructor('return ' + " + deep + ")"},
		{"GeneratorFunction", "(function* () {}).constructor('return ' + " + deep + ")"},
		{"Reflect.construct", "Reflect.construct(Function, ['return ' + " + deep + "])"},
		// No '*' in the mount code: the generator constructor is reached through text
		// handed to eval or Function, which guards it before that text runs.
		{"GeneratorFunction via eval", "eval('(function' + String.fromCharCode(42) + ' () {})').constructor('return ' + " + deep + ")"},
		{"GeneratorFunction via Function", "Function('return function' + String.fromCharCode(42) + ' () {}')().constructor('return ' + " + deep + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code := "try { " + tc.call + " } catch (e) { if (e instanceof SyntaxError && /Limits.MaxNesting/.test(e.message)) return () => {}; throw e }\nthrow new Error('no SyntaxError')"
			m, err := sb.Evaluate(context.Background(), "dyn-1", code)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			_ = m.Close(context.Background())
		})
	}
}

// TestCompilersStillWork: eval and the constructors behave as before for ordinary text,
// and the wrappers stand where the intrinsics stood.
func TestCompilersStillWork(t *testing.T) {
	sb := sandbox.New(nil)
	defer sb.Close(context.Background())
	checks := []string{
		`eval('1 + 2') === 3`,
		`eval(7) === 7`,
		`(0, eval)('this') === globalThis`,
		`Function('a', 'b', 'return a + b')(2, 3) === 5`,
		`new Function('return 4')() === 4`,
		`(function () {}).constructor === Function`,
		`(function () {}) instanceof Function && Function('') instanceof Function`,
		`Object.getPrototypeOf(Function('')) === Function.prototype`,
		`Function.name === 'Function' && Function.prototype.constructor === Function`,
		`(async function () {}).constructor('return 1')() instanceof Promise`,
		`(function* () { yield 1 }).constructor('yield 2')().next().value === 2`,
		`(async function () {}).constructor.name === 'AsyncFunction'`,
		`Function({ toString() { return 'return 9' } })() === 9`,
		`(() => { let n = 0; const body = { toString() { n++; return 'return 1' } }; Function(body); return n === 1 })()`,
		`(() => { const local = 1; try { return eval('local') !== 1 } catch (e) { return e instanceof ReferenceError } })()`,
	}
	code := "const results = [" + strings.Join(checks, ",\n") + "]\nconst bad = results.map((ok, i) => ok ? -1 : i).filter((i) => i >= 0)\nif (bad.length) throw new Error('failed: ' + bad.join(','))\nreturn () => {}"
	m, err := sb.Evaluate(context.Background(), "dyn-1", code)
	if err != nil {
		t.Fatalf("%v\nchecks:\n%s", err, strings.Join(checks, "\n"))
	}
	_ = m.Close(context.Background())
}

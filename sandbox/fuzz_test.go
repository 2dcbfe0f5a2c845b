package sandbox

import (
	"errors"
	"strings"
	"testing"
)

// FuzzCompileMount feeds arbitrary mount code to the compile step and the hint heuristics:
// they must never panic, and every rejection must be a positioned *SyntaxError whose
// position lies inside the code.
func FuzzCompileMount(f *testing.F) {
	for _, seed := range []string{
		"return (ctx) => {}",
		"return { name: 'x' as const, apply(ctx) {} }",
		"}); evil(); (async function () {",
		"return {\n  apply(ctx) {",
		"const s = `a ${ `b ${ c }` } d`; return () => s",
		"/* unterminated",
		"return /re[/]gex/.test('x') ? () => {} : null",
		"'\\",
		"let a = 1\nlet a = 2",
		"import x from 'y'",
		"\r\n\t})",
		"é✓𝄞 (",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, code string) {
		_, err := compileMount("dyn-1", code)
		if err == nil {
			return
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("%q: %T %v", code, err, err)
		}
		lines := strings.Count(code, "\n") + 1
		if se.Line < 0 || se.Line > lines || (se.Line > 0 && se.Column < 1) {
			t.Fatalf("%q: position %d:%d outside the code (%d lines)", code, se.Line, se.Column, lines)
		}
		_ = se.Error()
	})
}

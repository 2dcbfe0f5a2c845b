package jslex

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// BracketProblem finds the first unbalanced bracket in code, skipping strings, template
// literals, comments and regular expression literals. It returns "" when the brackets
// balance.
func BracketProblem(code string) string {
	type open struct {
		c   byte // ( [ or { (a template's ${ is a {)
		off int
	}
	var stack []open
	lx := newLexer(code)
	for {
		t, ok := lx.next()
		if !ok {
			break
		}
		switch t.kind {
		case tokOpen:
			stack = append(stack, open{t.text[len(t.text)-1], t.off})
		case tokClose:
			c, want := t.text[0], opener[t.text[0]]
			if len(stack) == 0 {
				return fmt.Sprintf("the `%c` at %s has no matching `%c`", c, at(code, t.off), want)
			}
			if o := stack[len(stack)-1]; o.c != want {
				return fmt.Sprintf("the `%c` at %s does not match the `%c` at %s", c, at(code, t.off), o.c, at(code, o.off))
			}
			stack = stack[:len(stack)-1]
		}
	}
	if lx.problem != "" {
		return lx.problem
	}
	if len(stack) > 0 {
		o := stack[len(stack)-1]
		return fmt.Sprintf("the `%c` at %s is never closed", o.c, at(code, o.off))
	}
	return ""
}

var opener = map[byte]byte{')': '(', ']': '[', '}': '{'}

// at names the position of byte offset off in code: "line 2, column 7" (1-based, columns
// in characters).
func at(code string, off int) string {
	line, col := Position(code, off)
	return fmt.Sprintf("line %d, column %d", line, col)
}

// Position returns the 1-based line and character column of byte offset off in code.
func Position(code string, off int) (line, col int) {
	before := code[:off]
	start := strings.LastIndexByte(before, '\n') + 1
	return strings.Count(before, "\n") + 1, utf8.RuneCountInString(before[start:]) + 1
}

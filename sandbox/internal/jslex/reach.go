package jslex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Reach is the set of constructors besides Function that source text may reach.
type Reach uint8

const (
	ReachGenerator Reach = 1 << iota // GeneratorFunction: the text has a '*' (function*, a *method)
	ReachAsync                       // AsyncFunction: the text has async, arguments or a \u escape
)

// Reaches returns the constructors besides Function that running src may reach, by the
// syntax each kind of function takes: an async function takes the word async, a generator
// a '*' — or, for AsyncFunction, the word arguments (a caller's async wrapper is
// arguments.callee in its body), which a \u escape can spell too. The white space and
// comments src starts with are skipped — before its first token every reader agrees on
// what a comment is — so a comment heading the code reaches nothing; a match further on,
// in a string or a comment, only reaches one more constructor than needed.
func Reaches(src string) Reach {
	src = src[codeStart(src):]
	var r Reach
	if strings.IndexByte(src, '*') >= 0 {
		r |= ReachGenerator
	}
	if strings.Contains(src, "async") || strings.Contains(src, "arguments") || strings.Contains(src, `\u`) {
		r |= ReachAsync
	}
	return r
}

// codeStart returns the offset of src's first token: past the white space and comments it
// starts with, as JavaScript reads them. A line comment ends at any line terminator (LF,
// CR, U+2028, U+2029); past a block comment that never closes there is no code (it does
// not parse).
func codeStart(src string) int {
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			i++
		case strings.HasPrefix(src[i:], "//"):
			i += 2
			for i < len(src) {
				r, size := utf8.DecodeRuneInString(src[i:])
				if r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' {
					break
				}
				i += size
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return len(src)
			}
			i += 2 + end + 2
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(src[i:])
			if r != '\uFEFF' && r != '\u2028' && r != '\u2029' && !unicode.Is(unicode.Zs, r) {
				return i
			}
			i += size
		default:
			return i
		}
	}
	return i
}

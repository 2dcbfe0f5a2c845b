package jslex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The lexer splits JavaScript source into the tokens the pre-parse checks need: brackets,
// punctuators, words and values. Strings, template text, comments and regular expression
// literals are skipped as units, so brackets inside them are not counted. It is deliberately
// small: it does not validate anything (the parser does), it only has to agree with the
// parser about where code is.

// A tokKind is what a token is.
type tokKind uint8

const (
	tokPunct tokKind = iota // an operator or other punctuator: = => ! . ? : , ; …
	tokOpen                 // ( [ { or the ${ of a template substitution
	tokClose                // ) ] } (a } may end a template substitution)
	tokWord                 // an identifier or keyword
	tokValue                // a number, a string, a regular expression, a template without substitutions, or a template's end
)

// A token is one lexeme. off is its byte offset in the source. (Its fields are ordered so
// it packs into 40 bytes: the checks copy one per token.)
type token struct {
	text string
	off  int
	// opens counts the brackets inside a regular expression literal's body: a regex the
	// lexer guessed where the parser sees a division must not hide nesting from the check.
	opens int
	kind  tokKind
	kw    keyword // what a tokWord is as a keyword (0 for any other word and token)
	nl    bool    // a line terminator precedes it
}

// A lexer produces the tokens of src one at a time.
type lexer struct {
	src     string
	i       int
	tok     token  // the token next returned
	prev    token  // the one before it; kind tokPunct with empty text at the start
	tmpl    []int  // per open template substitution, the { opened inside it and not closed
	resume  bool   // the last } closed a substitution: template text follows
	problem string // why lexing stopped early (an unclosed comment or template), or ""
}

func newLexer(src string) *lexer { return &lexer{src: src} }

// next returns the next token, or false at the end of the source (or of what it can read:
// see problem). The token is the lexer's own, overwritten by the next call: the checks
// read it in place rather than copying it around.
func (lx *lexer) next() (*token, bool) {
	lx.prev = lx.tok
	if lx.resume {
		lx.resume = false
		return &lx.tok, lx.template(lx.i, false)
	}
	nl, ok := lx.skipSpace()
	if !ok || !lx.scan() {
		return nil, false
	}
	lx.tok.nl = nl
	return &lx.tok, true
}

// skipSpace skips white space and comments, reporting whether they held a line terminator.
// It returns false at the end of the source or at a comment that never closes.
func (lx *lexer) skipSpace() (nl, ok bool) {
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == '\n' || c == '\r':
			nl = true
			lx.i++
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			lx.i++
		case c == '/' && strings.HasPrefix(lx.src[lx.i:], "//"):
			end := strings.IndexByte(lx.src[lx.i:], '\n')
			if end < 0 {
				lx.i = len(lx.src)
				return nl, false
			}
			lx.i += end
		case c == '/' && strings.HasPrefix(lx.src[lx.i:], "/*"):
			end := strings.Index(lx.src[lx.i+2:], "*/")
			if end < 0 {
				lx.problem = "a /* comment is never closed"
				return nl, false
			}
			nl = nl || strings.ContainsAny(lx.src[lx.i:lx.i+2+end], "\n\r\u2028\u2029")
			lx.i += 2 + end + 2
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(lx.src[lx.i:])
			if r == '\u2028' || r == '\u2029' {
				nl = true
			} else if !unicode.IsSpace(r) && r != '\uFEFF' {
				return nl, true
			}
			lx.i += size
		default:
			return nl, true
		}
	}
	return nl, false
}

// scan reads the token at lx.i (not white space) into lx.tok.
func (lx *lexer) scan() bool {
	start := lx.i
	c := lx.src[start]
	switch {
	case c == '\'' || c == '"':
		lx.i = skipString(lx.src, start)
		lx.tok = token{kind: tokValue, text: lx.src[start:lx.i], off: start}
		return true
	case c == '`':
		return lx.template(start+1, true)
	case c == '(' || c == '[' || c == '{':
		if c == '{' && len(lx.tmpl) > 0 {
			lx.tmpl[len(lx.tmpl)-1]++
		}
		lx.i++
		lx.tok = token{kind: tokOpen, text: lx.src[start:lx.i], off: start}
		return true
	case c == ')' || c == ']' || c == '}':
		lx.i++
		if c == '}' && len(lx.tmpl) > 0 {
			if top := &lx.tmpl[len(lx.tmpl)-1]; *top > 0 {
				*top--
			} else {
				lx.tmpl = lx.tmpl[:len(lx.tmpl)-1]
				lx.resume = true
			}
		}
		lx.tok = token{kind: tokClose, text: lx.src[start:lx.i], off: start}
		return true
	case c >= '0' && c <= '9' || c == '.' && start+1 < len(lx.src) && isDigit(lx.src[start+1]):
		lx.i = skipNumber(lx.src, start)
		lx.tok = token{kind: tokValue, text: lx.src[start:lx.i], off: start}
		return true
	case c == '/' && regexAllowed(&lx.prev):
		if end, opens, ok := skipRegex(lx.src, start); ok {
			lx.i = end
			lx.tok = token{kind: tokValue, text: lx.src[start:end], off: start, opens: opens}
			return true
		}
	case isWordByte(c):
		lx.i = skipWord(lx.src, start)
		text := lx.src[start:lx.i]
		lx.tok = token{kind: tokWord, text: text, off: start, kw: keywordOf(text)}
		return true
	}
	lx.i += punctLen(lx.src[start:])
	lx.tok = token{kind: tokPunct, text: lx.src[start:lx.i], off: start}
	return true
}

// template reads template text from i up to its end (a tokValue "`", or the whole literal
// when head is set and it has no substitution) or to a ${ (a tokOpen). Text after a
// substitution follows the } that closed it, already returned.
func (lx *lexer) template(i int, head bool) bool {
	start := i - 1
	for i < len(lx.src) {
		switch lx.src[i] {
		case '\\':
			i += 2
			continue
		case '`':
			lx.i = i + 1
			if head {
				lx.tok = token{kind: tokValue, text: lx.src[start:lx.i], off: start}
				return true
			}
			lx.tok = token{kind: tokValue, text: "`", off: i}
			return true
		case '$':
			if i+1 < len(lx.src) && lx.src[i+1] == '{' {
				lx.i = i + 2
				lx.tmpl = append(lx.tmpl, 0)
				lx.tok = token{kind: tokOpen, text: "${", off: i}
				return true
			}
		}
		i++
	}
	lx.i = len(lx.src)
	lx.problem = "a template literal (`) is never closed"
	return false
}

// regexAllowed reports whether a / after prev starts a regular expression literal rather
// than a division: after an operator, an opening bracket, a } (which usually ends a block)
// or a keyword that takes an operand.
func regexAllowed(prev *token) bool {
	switch prev.kind {
	case tokPunct, tokOpen:
		return true
	case tokClose:
		return prev.text == "}"
	case tokWord:
		return prev.kw&kwOperand != 0
	}
	return false
}

// A keyword is the set of roles a word plays for the checks, read once per word (see
// keywordOf) so they test bits, not maps.
type keyword uint8

const (
	kwOperand  keyword = 1 << iota // an operand, not an operator, comes next: return, typeof, in, …
	kwChain                        // takes an operand or a statement: the parser recurses into it (typeof, if, …)
	kwHead                         // followed by a parenthesized head and then a statement: if, for, while, with
	kwContinue                     // continues the statement before it across a line break: in, instanceof, of, else, catch, finally
	kwAsync                        // async
	kwElse                         // else
	kwIf                           // if
)

// keywordOf returns the roles of word w.
func keywordOf(w string) keyword {
	if len(w) < 2 || len(w) > 10 || w[0] < 'a' || w[0] > 'y' {
		return 0 // every keyword below is 2 to 10 lower-case letters, a to y
	}
	switch w {
	case "return", "throw", "case", "extends":
		return kwOperand
	case "typeof", "void", "delete", "new", "yield", "await":
		return kwOperand | kwChain
	case "in", "instanceof", "of":
		return kwOperand | kwChain | kwContinue
	case "do":
		return kwOperand | kwChain
	case "else":
		return kwOperand | kwChain | kwContinue | kwElse
	case "if":
		return kwChain | kwHead | kwIf
	case "for", "while", "with":
		return kwChain | kwHead
	case "catch", "finally":
		return kwContinue
	case "async":
		return kwAsync
	}
	return 0
}

// byteAt returns s[i], or 0 past its end.
func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '$' || c == '\\' || c == '#' || c >= utf8.RuneSelf
}

// skipWord returns the end of the identifier or keyword at i. Non-ASCII white space ends it.
func skipWord(src string, i int) int {
	for i < len(src) && isWordByte(src[i]) {
		if src[i] >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(src[i:])
			if unicode.IsSpace(r) || r == '\uFEFF' || r == '\u2028' || r == '\u2029' {
				break
			}
			i += size
			continue
		}
		i++
	}
	return i
}

// skipNumber returns the end of the number literal at i (1e+5, 0x1F, 1_000n, .5).
func skipNumber(src string, i int) int {
	hex := strings.HasPrefix(src[i:], "0x") || strings.HasPrefix(src[i:], "0X")
	for i++; i < len(src); i++ {
		c := src[i]
		if isWordByte(c) && c < utf8.RuneSelf && c != '\\' && c != '#' || c == '.' {
			continue
		}
		if (c == '+' || c == '-') && !hex && (src[i-1] == 'e' || src[i-1] == 'E') {
			continue
		}
		break
	}
	return i
}

// skipString returns the end of the string literal starting with the quote at i. A string
// ends at its quote or, unclosed, at the end of its line (the parser reports that).
func skipString(src string, i int) int {
	q := src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case q:
			return i + 1
		case '\n':
			return i
		}
	}
	return len(src)
}

// skipRegex returns the end of the regular expression literal at i (its flags included) and
// the brackets in its body, or false when the line ends first: then it was a division.
func skipRegex(src string, i int) (end, opens int, ok bool) {
	inClass := false
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\n', '\r':
			return 0, 0, false
		case '[':
			inClass = true
			opens++
		case ']':
			inClass = false
		case '(', '{':
			opens++
		case '/':
			if !inClass {
				j++
				for j < len(src) && isWordByte(src[j]) && src[j] < utf8.RuneSelf {
					j++
				}
				return j, opens, true
			}
		}
	}
	return 0, 0, false
}

// punctLen is the length of the punctuator s starts with, by maximal munch (one byte, or
// one rune, if it is none of these): >>>= ... === !== **= <<= >>= >>> &&= ||= ??= => ==
// != <= >= && || ?? ?. ++ -- += -= *= /= %= &= |= ^= ** << >>.
func punctLen(s string) int {
	c := s[0]
	if c >= utf8.RuneSelf {
		_, size := utf8.DecodeRuneInString(s)
		return size
	}
	at := func(i int) byte { return byteAt(s, i) }
	c1 := at(1)
	switch c {
	case '.':
		if c1 == '.' && at(2) == '.' {
			return 3
		}
	case '=', '!':
		if c1 == '=' {
			if at(2) == '=' {
				return 3 // === !==
			}
			return 2 // == !=
		}
		if c == '=' && c1 == '>' {
			return 2 // =>
		}
	case '<':
		if c1 == '<' {
			if at(2) == '=' {
				return 3 // <<=
			}
			return 2 // <<
		}
		if c1 == '=' {
			return 2
		}
	case '>':
		if c1 == '>' {
			if at(2) == '>' {
				if at(3) == '=' {
					return 4 // >>>=
				}
				return 3 // >>>
			}
			if at(2) == '=' {
				return 3 // >>=
			}
			return 2 // >>
		}
		if c1 == '=' {
			return 2
		}
	case '*':
		if c1 == '*' {
			if at(2) == '=' {
				return 3 // **=
			}
			return 2 // **
		}
		if c1 == '=' {
			return 2
		}
	case '&', '|':
		if c1 == c {
			if at(2) == '=' {
				return 3 // &&= ||=
			}
			return 2 // && ||
		}
		if c1 == '=' {
			return 2
		}
	case '?':
		if c1 == '?' {
			if at(2) == '=' {
				return 3 // ??=
			}
			return 2 // ??
		}
		if c1 == '.' && !isDigit(at(2)) {
			return 2 // ?. — but a ? b :.5 is a conditional, not optional chaining
		}
	case '+', '-':
		if c1 == c || c1 == '=' {
			return 2 // ++ -- += -=
		}
	case '/', '%', '^':
		if c1 == '=' {
			return 2
		}
	}
	return 1
}

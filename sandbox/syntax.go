package sandbox

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cordiskit/cordiskit/sandbox/internal/jslex"
)

// A SyntaxError reports mount code that does not parse as the body of an async function.
// Line and Column are 1-based positions in the code as written (Column counts characters).
type SyntaxError struct {
	Mount   string
	Line    int
	Column  int
	Message string // the parser's message, e.g. "Unexpected token )"
	Source  string // the offending line (an excerpt around Column when the line is long)
	Hint    string // what probably went wrong and how to fix it
	caret   int    // the column of the caret in Source, when Source is an excerpt
}

func (e *SyntaxError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: mount code failed to parse", e.Mount)
	if e.Line > 0 {
		fmt.Fprintf(&b, " at line %d, column %d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Line > 0 {
		num := strconv.Itoa(e.Line)
		caret := e.Column
		if e.caret > 0 {
			caret = e.caret
		}
		fmt.Fprintf(&b, "\n  %s | %s\n  %s | %s^", num, e.Source, strings.Repeat(" ", len(num)), caretPad(e.Source, caret))
	}
	if e.Hint != "" {
		b.WriteString("\n")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// caretPad is the whitespace that puts a caret under column col of line (tabs kept).
func caretPad(line string, col int) string {
	var b strings.Builder
	i := 1
	for _, c := range line {
		if i >= col {
			break
		}
		if c == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		i++
	}
	for ; i < col; i++ {
		b.WriteByte(' ')
	}
	return b.String()
}

// newSyntaxError maps a position in the wrapped source (line, byte column) to the code as
// written and picks a hint.
func newSyntaxError(id, code string, line, byteCol int, msg string) *SyntaxError {
	e := &SyntaxError{Mount: id, Message: msg}
	lines := strings.Split(code, "\n")
	if line > 0 {
		if line == 1 {
			byteCol -= len(wrapPrefix)
		}
		if line > len(lines) { // in the wrapper's closing line: the code ended early
			line = len(lines)
			byteCol = len(lines[line-1]) + 1
			e.Message = "Unexpected end of input"
		}
		src := strings.TrimRight(lines[line-1], "\r")
		byteCol = min(max(byteCol, 1), len(src)+1)
		e.Line = line
		e.Column = utf8.RuneCountInString(src[:byteCol-1]) + 1
		e.Hint = syntaxHint(code, src)
		e.setSource(src)
		return e
	}
	e.Hint = syntaxHint(code, "")
	return e
}

// Excerpt widths: the characters of a long line shown before and after the error.
const (
	excerptBefore = 60
	excerptAfter  = 40
)

// setSource sets Source to line, or, when line is long (code on one line, deep nesting
// written out), to an excerpt around Column marked with … at the cut ends, so the message
// stays short.
func (e *SyntaxError) setSource(line string) {
	e.Source, e.caret = line, 0
	if utf8.RuneCountInString(line) <= excerptBefore+excerptAfter {
		return
	}
	runes := []rune(line)
	from := max(e.Column-1-excerptBefore, 0)
	to := min(e.Column-1+excerptAfter, len(runes))
	e.Source, e.caret = string(runes[from:to]), e.Column-from
	if from > 0 {
		e.Source, e.caret = "…"+e.Source, e.caret+1
	}
	if to < len(runes) {
		e.Source += "…"
	}
}

// Patterns that mean TypeScript rather than JavaScript.
var tsPatterns = []*regexp.Regexp{
	regexp.MustCompile(`\bas\s+(const|string|number|boolean|any|unknown|never|[A-Z][\w.]*)\b`),
	regexp.MustCompile(`\b(let|const|var)\s+[\w$]+\s*:\s*[\w$<>\[\]|]+\s*=`),
	regexp.MustCompile(`[(,]\s*[\w$]+\??\s*:\s*(string|number|boolean|any|unknown|void|object|[A-Z][\w.]*(<[^>]*>)?)(\[\])?\s*[,)=]`),
	regexp.MustCompile(`\)\s*:\s*(string|number|boolean|any|unknown|void|Promise<[^>]*>|[A-Z][\w.]*)\s*(=>|\{)`),
	regexp.MustCompile(`^\s*(export\s+)?(interface|type)\s+[A-Z][\w$]*`),
	regexp.MustCompile(`^\s*(import|export)\s`),
	regexp.MustCompile(`\b(private|public|protected|readonly)\s+[\w$]+\s*[:;=(]`),
}

// syntaxHint explains the likely cause: TypeScript syntax, unbalanced brackets, or (the
// default) what the code is expected to be.
func syntaxHint(code, offending string) string {
	for i, re := range tsPatterns {
		if re.MatchString(offending) {
			if i == 5 {
				return "Mount code cannot use import/export: it is the body of an async function. " +
					"Use services on ctx instead of modules (declare them in inject), and `return` your plugin instead of exporting it."
			}
			return "The sandbox runs plain JavaScript, not TypeScript. Remove type annotations and casts:\n" +
				"  ✗ { type: 'text' as const, text: x }   ✓ { type: 'text', text: x }\n" +
				"  ✗ (name: string): string => …          ✓ (name) => …"
		}
	}
	if msg := jslex.BracketProblem(code); msg != "" {
		h := "Brackets do not balance: " + msg + "."
		if t := strings.TrimSpace(code); strings.HasSuffix(t, "});") || strings.HasSuffix(t, "})") {
			h += " Ending the returned plugin object with `});` closes a call that was never opened; " +
				"a plain `return { … }` ends with `}` (or `};`), never `)`."
		}
		return h
	}
	return "The code is the BODY of an async function: statements, then `return` your plugin:\n" + pluginForms
}

package sandbox

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A SyntaxError reports mount code that does not parse as the body of an async function.
// Line and Column are 1-based positions in the code as written (Column counts characters).
type SyntaxError struct {
	Mount   string
	Line    int
	Column  int
	Message string // the parser's message, e.g. "Unexpected token )"
	Source  string // the offending line
	Hint    string // what probably went wrong and how to fix it
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
		fmt.Fprintf(&b, "\n  %s | %s\n  %s | %s^", num, e.Source, strings.Repeat(" ", len(num)), caretPad(e.Source, e.Column))
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
		e.Line, e.Source = line, src
		e.Column = utf8.RuneCountInString(src[:byteCol-1]) + 1
	}
	e.Hint = syntaxHint(code, e.Source)
	return e
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
	if msg := bracketProblem(code); msg != "" {
		h := "Brackets do not balance: " + msg + "."
		if t := strings.TrimSpace(code); strings.HasSuffix(t, "});") || strings.HasSuffix(t, "})") {
			h += " Ending the returned plugin object with `});` closes a call that was never opened; " +
				"a plain `return { … }` ends with `}` (or `};`), never `)`."
		}
		return h
	}
	return "The code is the BODY of an async function: statements, then `return` your plugin:\n" + pluginForms
}

// bracketProblem finds the first unbalanced bracket in code, skipping strings, template
// literals and comments (regular expression literals are approximated). It returns "" when
// the brackets balance.
func bracketProblem(code string) string {
	type open struct {
		c         byte
		line, col int
	}
	var stack []open
	line, col := 1, 0
	closer := map[byte]byte{')': '(', ']': '[', '}': '{'}
	var prev byte // last significant character, to tell a regex from a division
	// templates tracks, for each open template literal, the stack depth at its ${.
	var templates []int
	inTemplate := false
	for i := 0; i < len(code); i++ {
		c := code[i]
		col++
		if c == '\n' {
			line, col = line+1, 0
		}
		if inTemplate {
			switch {
			case c == '\\':
				i++
				col++
			case c == '`':
				inTemplate = false
				prev = '`'
			case c == '$' && i+1 < len(code) && code[i+1] == '{':
				templates = append(templates, len(stack))
				stack = append(stack, open{'{', line, col})
				inTemplate = false
				i++
				col++
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '\'', '"':
			j := i + 1
			for j < len(code) && code[j] != c && code[j] != '\n' {
				if code[j] == '\\' {
					j++
				}
				j++
			}
			col += j - i
			i = j
			prev = c
			continue
		case '`':
			inTemplate = true
			continue
		case '/':
			if i+1 < len(code) && code[i+1] == '/' {
				for i < len(code) && code[i] != '\n' {
					i++
				}
				line, col = line+1, 0
				continue
			}
			if i+1 < len(code) && code[i+1] == '*' {
				end := strings.Index(code[i+2:], "*/")
				if end < 0 {
					return "a /* comment is never closed"
				}
				seg := code[i : i+2+end+2]
				line += strings.Count(seg, "\n")
				i += len(seg) - 1
				continue
			}
			if prev == 0 || strings.IndexByte("(,=:[!&|?{};+-*%<>~^", prev) >= 0 {
				j := i + 1
				inClass := false
				for j < len(code) && code[j] != '\n' && (code[j] != '/' || inClass) {
					switch code[j] {
					case '\\':
						j++
					case '[':
						inClass = true
					case ']':
						inClass = false
					}
					j++
				}
				col += j - i
				i = j
				prev = 'r'
				continue
			}
		case '(', '[', '{':
			stack = append(stack, open{c, line, col})
		case ')', ']', '}':
			if len(stack) == 0 || stack[len(stack)-1].c != closer[c] {
				if len(stack) == 0 {
					return fmt.Sprintf("the `%c` at line %d, column %d has no matching `%c`", c, line, col, closer[c])
				}
				o := stack[len(stack)-1]
				return fmt.Sprintf("the `%c` at line %d, column %d does not match the `%c` at line %d, column %d", c, line, col, o.c, o.line, o.col)
			}
			stack = stack[:len(stack)-1]
			if c == '}' && len(templates) > 0 && templates[len(templates)-1] == len(stack) {
				templates = templates[:len(templates)-1]
				inTemplate = true
			}
		}
		prev = c
	}
	if inTemplate {
		return "a template literal (`) is never closed"
	}
	if len(stack) > 0 {
		o := stack[len(stack)-1]
		return fmt.Sprintf("the `%c` at line %d, column %d is never closed", o.c, o.line, o.col)
	}
	return ""
}

package sandbox

import (
	"fmt"
	"strings"

	"github.com/dop251/goja"
)

// goja parses and compiles by recursion: source text nested a few hundred thousand levels
// deep overflows the Go stack, a fatal error no recover catches, before any time bound
// applies; and its compiler's work grows with the square of the depth for some shapes
// (left-deep operator chains, nested functions and blocks). checkNesting measures both on
// the tokens, in one linear pass, before the parser sees the code.

// Nesting counts more than brackets, because the parser recurses on more: it is the open
// brackets and template substitutions, plus, at each bracket level, the chain of operators,
// unary prefixes, keywords that take an operand or a statement (typeof, new, await, if,
// for, while, else, …), member accesses and calls since the expression started. A chain
// restarts at a , or ; and at a line break between two statements; it continues through a
// break that cannot end a statement (after an operator, or before else).

// A nestingError reports the token where a limit was crossed.
type nestingError struct {
	off int    // byte offset of the token
	msg string // what was crossed and how to fix it
}

// A level is one open bracket (the outermost is the code itself).
type level struct {
	open  string // "(", "[", "{", "${", or "" for the code itself
	head  bool   // a ( that follows if, for, while or with: its ) does not end an operand
	async bool   // a ( that follows async
	plain bool   // nothing but words and commas inside so far
	chain int    // the operator chain counted at this level
	work  int    // the nesting work of the tokens inside
}

// nestingCheck is the state of checkNesting.
type nestingCheck struct {
	max, maxWork int
	stack        []level
	depth        int // len(stack)-1 plus every level's chain
	work         int // the sum of depth over the tokens so far
	pending      int // a chain restart waiting for the next token: 0 none, 1 after ;, 2 at a line break
	prev         token
	prevHeadEnd  bool  // prev is the ) of an if/for/while/with head
	closed       level // the level prev closed, if prev is a )
	peak         int   // the deepest depth seen
}

// checkNesting reports the first place code nests deeper than max, or where the sum over
// its tokens of the depth each sits at passes maxWork, or nil.
func checkNesting(code string, max, maxWork int) *nestingError {
	var levels [16]level // room for most code's brackets without allocating
	c := nestingCheck{max: max, maxWork: maxWork, stack: append(levels[:0], level{})}
	return c.run(code)
}

func (c *nestingCheck) run(code string) *nestingError {
	lx := newLexer(code)
	for {
		t, ok := lx.next()
		if !ok {
			return nil
		}
		if err := c.token(t); err != nil {
			return err
		}
	}
}

func (c *nestingCheck) token(t *token) *nestingError {
	c.restart(t)
	top := &c.stack[len(c.stack)-1]
	if t.kind != tokWord && !(t.kind == tokPunct && t.text == ",") {
		top.plain = false
	}
	if t.kind == tokPunct && t.text == "=>" && c.prev.kind == tokClose && c.closed.open == "(" && (c.closed.async || !c.closed.plain) {
		// goja parses a parameter list that is not a plain list of names twice (first as an
		// expression), so nested ones cost exponentially: count its work again.
		top.work += c.closed.work
		c.work += c.closed.work
	}
	switch {
	case t.kind == tokOpen:
		if t.text != "{" && endsOperand(&c.prev, c.prevHeadEnd) {
			top.chain++ // a call, an index or a tagged template continues the chain
			c.depth++
		}
		paren := t.text == "(" && c.prev.kind == tokWord
		c.stack = append(c.stack, level{open: t.text, plain: true,
			head:  paren && c.prev.kw&kwHead != 0,
			async: paren && c.prev.kw&kwAsync != 0})
		c.depth++
	case t.kind == tokClose:
		c.prevHeadEnd = false
		if len(c.stack) > 1 { // an unmatched closer is the parser's to report
			l := c.stack[len(c.stack)-1]
			c.stack = c.stack[:len(c.stack)-1]
			c.depth -= 1 + l.chain
			c.prevHeadEnd = l.head
			c.closed = l
			c.stack[len(c.stack)-1].work += l.work
		}
		c.prev = *t
		return nil
	case t.kind == tokPunct && t.text == ",":
		c.depth -= top.chain
		top.chain = 0
	case t.kind == tokPunct && t.text == ";":
		c.pending = 1 // the chain restarts at the next token, unless it is an else
	case t.kind == tokPunct || t.kind == tokWord && t.kw&kwChain != 0 && !(t.kw&kwIf != 0 && c.prev.kw&kwElse != 0):
		top.chain++
		c.depth++
	}
	c.prevHeadEnd = false
	c.prev = *t
	d := c.depth + t.opens
	c.peak = max(c.peak, d)
	if d > c.max {
		return &nestingError{off: t.off, msg: fmt.Sprintf("the code nests deeper than %d levels here", c.max)}
	}
	c.work += c.depth
	c.stack[len(c.stack)-1].work += c.depth
	if c.work > c.maxWork {
		return &nestingError{off: t.off, msg: fmt.Sprintf("the code is too large for how deeply it nests: by here, its tokens sum to more than %d levels of nesting", c.maxWork)}
	}
	return nil
}

// restart ends the current level's chain if the token before t ended a statement: a ; (not
// followed by else), or a line break or a } between an operand and a token that starts a
// new one.
func (c *nestingCheck) restart(t *token) {
	p := c.pending
	c.pending = 0
	if p == 0 && (t.nl && endsOperand(&c.prev, c.prevHeadEnd) || c.prev.text == "}") && startsStatement(t) {
		p = 2 // a word after a block, as in minified function a(){}function b(){}, is a new statement too
	}
	if p == 0 || t.kind == tokWord && (t.kw&kwElse != 0 || p == 2 && t.kw&kwContinue != 0) {
		return
	}
	top := &c.stack[len(c.stack)-1]
	c.depth -= top.chain
	top.chain = 0
}

// endsOperand reports whether an expression may end with t.
func endsOperand(t *token, headEnd bool) bool {
	switch t.kind {
	case tokValue:
		return true
	case tokWord:
		return t.kw&(kwChain|kwOperand) == 0
	case tokClose:
		return !headEnd
	}
	return false
}

// startsStatement reports whether t, after a line break that follows an operand, starts a
// new statement (JavaScript inserts a semicolon there) rather than continuing the
// expression: a word or a literal does, an operator, a bracket or a template does not.
func startsStatement(t *token) bool {
	switch t.kind {
	case tokWord:
		return t.kw&kwContinue == 0
	case tokValue:
		return t.text[0] != '`'
	}
	return false
}

// nestingSyntaxError turns a nestingError into a positioned *SyntaxError that says how to
// flatten the code.
func nestingSyntaxError(id, code string, ne *nestingError) *SyntaxError {
	line, col := position(code, ne.off)
	src := code[strings.LastIndexByte(code[:ne.off], '\n')+1:]
	if end := strings.IndexByte(src, '\n'); end >= 0 {
		src = src[:end]
	}
	e := &SyntaxError{Mount: id, Line: line, Column: col, Message: ne.msg,
		Hint: "Brackets, template ${…} substitutions and chains of operators, unary prefixes, calls and else-ifs " +
			"in one expression each count as a level. Flatten the code: build deep data in a loop or parse it from a " +
			"JSON string (JSON.parse), split a long expression into statements (or collect parts in an array and join " +
			"them), use a switch or a lookup object instead of a long else-if chain, and keep large code shallow."}
	e.setSource(strings.TrimRight(src, "\r"))
	return e
}

// guardJSON replaces the parse of j, the engine's JSON object in rt, with one that first
// measures the text's nesting: goja's JSON.parse recurses once per level, so
// '['.repeat(5e6) overflowed the Go stack, a fatal error. Text nested deeper than max
// throws a SyntaxError instead. The realm's global object hands j to JavaScript only once
// it is guarded (see compilerGuard.jsonGuard).
func guardJSON(rt *goja.Runtime, j *goja.Object, max int) {
	parse, ok := goja.AssertFunction(j.Get("parse"))
	if !ok {
		return
	}
	_ = j.Set("parse", func(call goja.FunctionCall) goja.Value {
		text := call.Argument(0).ToString() // once: a toString runs once, as with the original
		if jsonDeeper(text.String(), max) {
			msg := fmt.Sprintf("JSON.parse: the text nests deeper than %d levels (Limits.MaxNesting); flatten the data", max)
			// The realm's SyntaxError, read only now (building it for every realm costs); if
			// mount code replaced it with something that is not a constructor, a TypeError.
			if ctor, ok := rt.Get("SyntaxError").(*goja.Object); ok {
				if e, err := rt.New(ctor, rt.ToValue(msg)); err == nil {
					panic(e)
				}
			}
			panic(rt.NewTypeError(msg))
		}
		args := append([]goja.Value{text}, call.Arguments[min(1, len(call.Arguments)):]...)
		v, err := parse(call.This, args...)
		if err != nil {
			panic(err)
		}
		return v
	})
}

// jsonDeeper reports whether JSON text s nests deeper than max (brackets outside strings).
func jsonDeeper(s string, max int) bool {
	depth, inString := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > max {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

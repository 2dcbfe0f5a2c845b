package jslex

import "fmt"

// goja parses and compiles by recursion: source text nested a few hundred thousand levels
// deep overflows the Go stack, a fatal error no recover catches, before any time bound
// applies; and its compiler's work grows with the square of the depth for some shapes
// (left-deep operator chains, nested functions and blocks). CheckNesting measures both on
// the tokens, in one linear pass, before the parser sees the code.

// Nesting counts more than brackets, because the parser recurses on more: it is the open
// brackets and template substitutions, plus, at each bracket level, the chain of operators,
// unary prefixes, keywords that take an operand or a statement (typeof, new, await, if,
// for, while, else, …), member accesses and calls since the expression started. A chain
// restarts at a , or ; and at a line break between two statements; it continues through a
// break that cannot end a statement (after an operator, or before else).

// A NestingError reports the token where a limit was crossed.
type NestingError struct {
	Off int    // byte offset of the token in the code
	Msg string // what was crossed: "the code nests deeper than 500 levels here"
}

func (e *NestingError) Error() string { return e.Msg }

// A level is one open bracket (the outermost is the code itself).
type level struct {
	open  string // "(", "[", "{", "${", or "" for the code itself
	head  bool   // a ( that follows if, for, while or with: its ) does not end an operand
	async bool   // a ( that follows async
	plain bool   // nothing but words and commas inside so far
	chain int    // the operator chain counted at this level
	work  int    // the nesting work of the tokens inside
}

// nestingCheck is the state of CheckNesting.
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

// CheckNesting reports the first place code nests deeper than max, or where the sum over
// its tokens of the depth each sits at passes maxWork, or nil.
func CheckNesting(code string, max, maxWork int) *NestingError {
	var levels [16]level // room for most code's brackets without allocating
	c := nestingCheck{max: max, maxWork: maxWork, stack: append(levels[:0], level{})}
	return c.run(code)
}

// Measure returns what CheckNesting measures in code, with no limit: the deepest nesting
// a token sits at, and the nesting work (the sum over its tokens of the depth each sits at).
func Measure(code string) (peak, work int) {
	c := &nestingCheck{max: 1 << 30, maxWork: 1 << 62, stack: []level{{}}}
	c.run(code)
	return c.peak, c.work
}

func (c *nestingCheck) run(code string) *NestingError {
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

func (c *nestingCheck) token(t *token) *NestingError {
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
		return &NestingError{Off: t.off, Msg: fmt.Sprintf("the code nests deeper than %d levels here", c.max)}
	}
	c.work += c.depth
	c.stack[len(c.stack)-1].work += c.depth
	if c.work > c.maxWork {
		return &NestingError{Off: t.off, Msg: fmt.Sprintf("the code is too large for how deeply it nests: by here, its tokens sum to more than %d levels of nesting", c.maxWork)}
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

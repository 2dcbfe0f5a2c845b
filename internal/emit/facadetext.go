package emit

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The façade is written as text laid out as gofmt lays it out, like the catalog's entries
// (catalogtext.go): building jennifer trees for it and formatting what they render was
// most of a generator run. The writers below cover the part of Go it uses; each follows
// go/printer for its construct. A multi-line piece is written relative to the line it
// starts on, and whoever puts it in a block or list indents its later lines (indented).
// TestGeneratedFilesAreGofmted and TestSyntheticGofmted hold the result to gofmt's.

// depthBlank stands for the blank on each side of a binary operator that gofmt prints
// only at depth 1, outside any argument list of several arguments: a + b alone or as the
// only argument, a+b as one of several (go/printer's cutoff, for an expression of one
// precedence). The writer that fixes the depth replaces it: call with several arguments
// by nothing, the statement, composite element and key-value writers by a blank.
const depthBlank = "\x01"

// lit is a Go string literal, as jennifer's Lit writes one.
func lit(s string) string { return strconv.Quote(s) }

// binary writes xs joined by op, the blanks around it depending on depth.
func binary(op string, xs ...string) string {
	return strings.Join(xs, depthBlank+op+depthBlank)
}

// top is x at depth 1: a statement, a composite element or a key-value pair's value.
func top(x string) string { return strings.ReplaceAll(x, depthBlank, " ") }

// call writes fn(args) on one line; an argument may span lines.
func call(fn string, args ...string) string {
	var b strings.Builder
	b.WriteString(fn + "(")
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		if len(args) > 1 {
			a = strings.ReplaceAll(a, depthBlank, "")
		}
		b.WriteString(a)
	}
	b.WriteString(")")
	return b.String()
}

// callLines writes fn(first, then one argument a line, each followed by a comma, and the
// closing parenthesis on a line of its own.
func callLines(fn, first string, args []string) string {
	if len(args) == 0 {
		return call(fn, first)
	}
	var b strings.Builder
	b.WriteString(fn + "(" + first + ",\n")
	for _, a := range args {
		b.WriteString("\t")
		indented(&b, strings.ReplaceAll(a, depthBlank, "")) // one of several arguments
		b.WriteString(",\n")
	}
	b.WriteString(")")
	return b.String()
}

// values writes typ{elts} on one line.
func values(typ string, elts ...string) string {
	return top(literalLine(typ, elts))
}

// valueLines writes typ{elts}, one element a line.
func valueLines(typ string, elts []string) string {
	if len(elts) == 0 {
		return typ + "{}"
	}
	return lines(typ, elts)
}

// block writes {stmts}, one statement a line.
func block(stmts ...string) string {
	var b strings.Builder
	b.WriteString("{\n")
	for _, s := range stmts {
		b.WriteString("\t")
		indented(&b, top(s))
		b.WriteString("\n")
	}
	b.WriteString("}")
	return b.String()
}

// funcLit writes a function literal (or a declaration) of signature sig: func(…) …
func funcLit(sig string, stmts ...string) string { return sig + " " + block(stmts...) }

// shortFunc writes a function literal of one statement on one line when it fits, as
// gofmt keeps a function literal written on one line: the signature and the statement
// in 100 bytes (go/printer's funcBody).
func shortFunc(sig, stmt string) string {
	stmt = top(stmt)
	if len(sig)+len(stmt) <= 100 && !strings.Contains(stmt, "\n") {
		return sig + " { " + stmt + " }"
	}
	return funcLit(sig, stmt)
}

// ifBlock writes if cond {stmts}.
func ifBlock(cond string, stmts ...string) string { return "if " + top(cond) + " " + block(stmts...) }

// signature writes func(params) results: no parentheses around one result, none for none.
func signature(name string, params, results []string) string {
	s := "func" + name + "(" + strings.Join(params, ", ") + ")"
	switch len(results) {
	case 0:
		return s
	case 1:
		return s + " " + results[0]
	}
	return s + " (" + strings.Join(results, ", ") + ")"
}

// keyedLines writes typ{key: value, …} one pair a line, aligning the values of a run of
// one-line pairs as gofmt does: a pair that spans lines ends the run, and so does a key
// much longer or shorter than the run's (go/printer's exprList, for key-value pairs).
func keyedLines(typ string, pairs []kv) string {
	if len(pairs) == 0 {
		return typ + "{}"
	}
	type elem struct {
		kv
		ff, aligned bool
	}
	elems := make([]elem, len(pairs))
	size, count, lnsum := 0, 0, 0.0
	for i, p := range pairs {
		p.val = top(p.val)
		prevSize := size
		size = 0
		if !strings.Contains(p.val, "\n") {
			size = len(p.key)
		}
		useFF := true
		if prevSize > 0 && size > 0 {
			if count == 0 || prevSize <= 40 && size <= 40 {
				useFF = false
			} else {
				ratio := float64(size) / math.Exp(lnsum/float64(count))
				useFF = 2.5*ratio <= 1 || 2.5 <= ratio
			}
		}
		if i > 0 && useFF {
			lnsum, count = 0, 0
		}
		if size > 0 {
			lnsum += math.Log(float64(size))
			count++
		}
		elems[i] = elem{p, i > 0 && useFF, len(pairs) > 1 && size > 0}
	}
	var b strings.Builder
	b.WriteString(typ + "{\n")
	for i := 0; i < len(elems); {
		j := i + 1
		for elems[i].aligned && j < len(elems) && elems[j].aligned && !elems[j].ff {
			j++
		}
		width := 0
		for _, e := range elems[i:j] {
			width = max(width, utf8.RuneCountInString(e.key))
		}
		for _, e := range elems[i:j] {
			pad := " "
			if e.aligned {
				pad = strings.Repeat(" ", width-utf8.RuneCountInString(e.key)+1)
			}
			b.WriteString("\t" + e.key + ":" + pad)
			indented(&b, e.val)
			b.WriteString(",\n")
		}
		i = j
	}
	b.WriteString("}")
	return b.String()
}

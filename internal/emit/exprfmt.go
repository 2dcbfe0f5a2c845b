package emit

import (
	"go/ast"
	"go/token"
	"math"
	"strings"
	"unicode/utf8"
)

// The expressions of formatDecl (see declfmt.go).

func (p *declPrinter) expr(x ast.Expr)             { p.expr1(x, token.LowestPrec, 1) }
func (p *declPrinter) expr0(x ast.Expr, depth int) { p.expr1(x, token.LowestPrec, depth) }

// expr1 follows go/printer's expr1.
func (p *declPrinter) expr1(expr ast.Expr, prec1, depth int) {
	switch x := expr.(type) {
	case *ast.Ident:
		p.write(x.Name)
	case *ast.BasicLit:
		switch {
		case x.Kind == token.STRING && x.Value[0] == '"', x.Kind == token.CHAR:
		case x.Kind == token.INT && strings.Trim(x.Value, "0123456789") == "" && (x.Value == "0" || x.Value[0] != '0'):
		default:
			p.giveUp("literal") // raw strings span lines; gofmt normalizes other numbers
		}
		p.write(x.Value)
	case *ast.BinaryExpr:
		p.binaryExpr(x, prec1, cutoff(x, max(depth, 1)), max(depth, 1))
	case *ast.KeyValueExpr:
		p.expr(x.Key)
		p.write(": ")
		p.expr(x.Value)
	case *ast.StarExpr:
		if token.UnaryPrec < prec1 {
			p.giveUp("parenthesized pointer") // the parser makes a ParenExpr
		}
		p.write("*")
		p.expr(x.X)
	case *ast.UnaryExpr:
		if x.Op == token.RANGE || x.Op == token.TILDE || x.Op == token.ARROW {
			p.giveUp("operator")
		}
		if token.UnaryPrec < prec1 {
			p.giveUp("parenthesized unary expression") // the parser makes a ParenExpr
		}
		p.write(x.Op.String())
		p.expr1(x.X, token.UnaryPrec, depth)
	case *ast.FuncLit:
		p.write("func")
		start := len(p.out) - len("func")
		p.signature(x.Type)
		header := 1 << 20 // go/printer's infinity: the header spans lines
		if oneLineSize(p.out[start:], 1<<20) <= 1<<20 {
			header = len(p.out) - start
		}
		p.funcBody(header, x.Body)
	case *ast.ParenExpr:
		if _, hasParens := x.X.(*ast.ParenExpr); hasParens {
			p.expr0(x.X, depth)
		} else {
			p.write("(")
			p.expr0(x.X, reduceDepth(depth))
			p.write(")")
		}
	case *ast.SelectorExpr:
		p.expr1(x.X, token.HighestPrec, depth)
		if p.line(x.Sel.Pos()) != p.line(x.X.End()) {
			p.giveUp("selector broken over lines")
		}
		p.write("." + x.Sel.Name)
	case *ast.IndexExpr:
		p.expr1(x.X, token.HighestPrec, 1)
		p.write("[")
		p.expr0(x.Index, depth+1)
		p.write("]")
	case *ast.IndexListExpr:
		p.expr1(x.X, token.HighestPrec, 1)
		p.write("[")
		p.exprList(x.Lbrack, x.Indices, depth+1, true, x.Rbrack)
		p.write("]")
	case *ast.CallExpr:
		if len(x.Args) > 1 {
			depth++
		}
		switch x.Fun.(type) {
		case *ast.FuncType, *ast.ChanType:
			p.giveUp("conversion to a func or chan type")
		}
		if x.Ellipsis.IsValid() {
			p.giveUp("call with ...")
		}
		p.expr1(x.Fun, token.HighestPrec, depth)
		p.write("(")
		p.exprList(x.Lparen, x.Args, depth, true, x.Rparen)
		p.write(")")
	case *ast.CompositeLit:
		if x.Incomplete {
			p.giveUp("incomplete literal")
		}
		if x.Type != nil {
			p.expr1(x.Type, token.HighestPrec, depth)
		}
		p.write("{")
		p.exprList(x.Lbrace, x.Elts, 1, true, x.Rbrace)
		p.write("}")
	case *ast.Ellipsis:
		p.write("...")
		if x.Elt != nil {
			p.expr(x.Elt)
		}
	case *ast.ArrayType:
		p.write("[")
		if x.Len != nil {
			p.expr(x.Len)
		}
		p.write("]")
		p.expr(x.Elt)
	case *ast.MapType:
		p.write("map[")
		p.expr(x.Key)
		p.write("]")
		p.expr(x.Value)
	case *ast.FuncType:
		p.write("func")
		p.signature(x)
	case *ast.StructType:
		p.structType(x)
	default:
		p.giveUp("expression")
	}
}

// binaryExpr follows go/printer's binaryExpr for an expression on one line.
func (p *declPrinter) binaryExpr(x *ast.BinaryExpr, prec1, cutoff, depth int) {
	prec := x.Op.Precedence()
	if prec < prec1 {
		p.giveUp("binary expression needing parentheses") // the parser makes a ParenExpr
	}
	if p.line(x.X.End()) != p.line(x.Y.Pos()) {
		p.giveUp("binary expression broken over lines")
	}
	blank := prec < cutoff
	p.expr1(x.X, prec, depth+diffPrec(x.X, prec))
	if blank {
		p.write(" ")
	}
	p.write(x.Op.String())
	if blank {
		p.write(" ")
	}
	p.expr1(x.Y, prec+1, depth+1)
}

// structType follows go/printer's fieldList for a struct: {} on one line when empty,
// else a field a line, the types of consecutive named fields aligned.
func (p *declPrinter) structType(x *ast.StructType) {
	list := x.Fields.List
	oneLine := p.line(x.Fields.Opening) == p.line(x.Fields.Closing)
	switch {
	case oneLine && len(list) == 0:
		p.write("struct{}")
		return
	case oneLine || len(list) == 0:
		p.giveUp("struct layout")
	}
	type row struct{ names, typ []byte }
	rows := make([]row, len(list))
	for i, f := range list {
		if f.Tag != nil || f.Doc != nil || f.Comment != nil {
			p.giveUp("struct field tag or comment")
		}
		if i > 0 && p.line(f.Pos()) != p.line(list[i-1].End())+1 {
			p.giveUp("struct field layout")
		}
		if len(f.Names) > 0 {
			rows[i].names = p.sub(func() { p.identList(f.Names) })
		}
		p.indent++
		rows[i].typ = p.sub(func() { p.expr(f.Type) })
		p.indent--
		if oneLineSize(rows[i].typ, 1<<20) > 1<<20 {
			p.giveUp("struct field spanning lines")
		}
	}
	p.write("struct {")
	p.indent++
	for i := 0; i < len(rows); {
		// A run of named fields: one column of names (sep is a blank for a single field).
		j, width := i, 0
		for ; j < len(rows) && rows[j].names != nil; j++ {
			width = max(width, utf8.RuneCount(rows[j].names))
		}
		if j == i {
			p.newlines(1)
			p.writeBytes(rows[i].typ)
			i++
			continue
		}
		for _, r := range rows[i:j] {
			p.newlines(1)
			p.writeBytes(r.names)
			p.write(strings.Repeat(" ", width-utf8.RuneCount(r.names)+1))
			p.writeBytes(r.typ)
		}
		i = j
	}
	for _, r := range rows {
		p.release(r.names)
		p.release(r.typ)
	}
	p.indent--
	p.newlines(1)
	p.write("}")
}

// exprList follows go/printer's exprList: the list on one line when it is in the source,
// else broken where the source breaks it, indented from the first break on, with a
// trailing comma when the closing token is on a later line (commaTerm). The keys of
// key-value pairs that start lines align as go/printer's tabwriter aligns them.
func (p *declPrinter) exprList(prev0 token.Pos, list []ast.Expr, depth int, commaTerm bool, next0 token.Pos) {
	if len(list) == 0 {
		return
	}
	prevLine, nextLine := p.line(prev0), p.line(next0)
	line := p.line(list[0].Pos())
	if prevLine > 0 && prevLine == line && line == p.line(list[len(list)-1].End()) {
		for i, x := range list {
			if i > 0 {
				p.write(", ")
			}
			p.expr0(x, depth)
		}
		return
	}

	// Each element is printed on its own, then the list written: the padding of an
	// aligned key depends on the keys of the lines around it.
	elems := make([]listElem, len(list))
	indented := false
	cur := prevLine // go/printer's p.pos.Line
	if prevLine > 0 && prevLine < line {
		elems[0].brk, elems[0].ff = min(line-cur, 2), true
		p.indent++
		indented = true
	}
	size, count, lnsum := 0, 0, 0.0
	pairs := 0
	lastLine := prevLine // go/printer's prevLine
	for i, x := range list {
		line = p.line(x.Pos())
		pair, isPair := x.(*ast.KeyValueExpr)
		if isPair {
			pairs++
		}
		needsBreak := 0 < lastLine && lastLine < line
		if i > 0 && needsBreak {
			if n := min(line-cur, 2); n > 0 {
				elems[i].brk = n
				if !indented {
					p.indent++
					indented = true
				}
			}
		}
		if elems[i].brk > 1 {
			p.giveUp("empty line in a list")
		}

		var key, val []byte
		if isPair {
			key = p.sub(func() { p.expr(pair.Key) })
			val = p.sub(func() { p.expr(pair.Value) })
		} else {
			val = p.sub(func() { p.expr0(x, depth) })
		}

		// go/printer's size of the element (of its key for a pair), 0 when it spans lines
		// or the list's ends are unknown; and whether the break before it is a formfeed.
		const infinity = 1 << 20
		prevSize := size
		size = 0
		if prevLine > 0 && nextLine > 0 && oneLineSize(val, infinity) <= infinity && oneLineSize(key, infinity) <= infinity {
			size = len(val)
			if isPair {
				size = len(key)
			}
		}
		useFF := true
		if prevSize > 0 && size > 0 {
			if count == 0 || prevSize <= 40 && size <= 40 {
				useFF = false
			} else {
				const r = 2.5
				ratio := float64(size) / math.Exp(lnsum/float64(count))
				useFF = r*ratio <= 1 || r <= ratio
			}
		}
		if i > 0 && elems[i].brk > 0 {
			elems[i].ff = useFF
			if useFF {
				lnsum, count = 0, 0 // a formfeed counts as two breaks
			}
		}
		elems[i].key, elems[i].val = key, val
		elems[i].aligned = isPair && len(list) > 1 && size > 0 && needsBreak
		if size > 0 {
			lnsum += math.Log(float64(size))
			count++
		}
		lastLine = line
		cur = p.line(x.End())
	}
	if pairs != 0 && pairs != len(list) {
		p.giveUp("list of pairs and values")
	}

	if indented {
		p.indent--
	}
	p.writeElems(elems)
	if commaTerm && nextLine > 0 && cur < nextLine {
		p.write(",")
		p.newlines(1)
	}
}

// A listElem is one element of a list broken over lines, printed.
type listElem struct {
	brk      int    // line breaks before it
	ff       bool   // the break starts a new alignment section (a formfeed)
	aligned  bool   // a key-value pair whose key is in a column
	key, val []byte // key (of a pair) and value
}

// writeElems writes the elements of a list broken over lines, the keys of a run of
// aligned lines (no formfeed between them) padded to the widest key's width plus one, as
// go/printer's tabwriter pads a column of cells; and gives their buffers back.
func (p *declPrinter) writeElems(elems []listElem) {
	for i := 0; i < len(elems); {
		j := i + 1
		for elems[i].aligned && j < len(elems) && elems[j].aligned && !elems[j].ff {
			j++
		}
		width := 0
		for _, e := range elems[i:j] {
			width = max(width, utf8.RuneCount(e.key))
		}
		for k, e := range elems[i:j] {
			if i+k > 0 {
				p.write(",")
			}
			if e.brk > 0 {
				p.indent++
				p.newlines(e.brk)
			} else if i+k > 0 {
				p.write(" ")
			}
			switch {
			case e.aligned && e.brk == 0:
				p.giveUp("aligned key in the middle of a line")
			case e.aligned:
				p.writeBytes(e.key)
				p.write(":" + strings.Repeat(" ", width-utf8.RuneCount(e.key)+1))
			case e.key != nil:
				p.writeBytes(e.key)
				p.write(": ")
			}
			p.writeBytes(e.val)
			if e.brk > 0 {
				p.indent--
			}
		}
		i = j
	}
	for _, e := range elems {
		p.release(e.key)
		p.release(e.val)
	}
}

// stripParens, stripParensAlways, isTypeName, cutoff, walkBinary, diffPrec and
// reduceDepth are go/printer's (src/go/printer/nodes.go, Copyright The Go Authors, under
// the BSD-style license of the Go distribution), copied without their comments.

func stripParens(x ast.Expr) ast.Expr {
	if px, strip := x.(*ast.ParenExpr); strip {
		ast.Inspect(px.X, func(node ast.Node) bool {
			switch x := node.(type) {
			case *ast.ParenExpr:
				return false
			case *ast.CompositeLit:
				if isTypeName(x.Type) {
					strip = false
				}
				return false
			}
			return true
		})
		if strip {
			return stripParens(px.X)
		}
	}
	return x
}

func isTypeName(x ast.Expr) bool {
	switch t := x.(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return isTypeName(t.X)
	}
	return false
}

func stripParensAlways(x ast.Expr) ast.Expr {
	if x, ok := x.(*ast.ParenExpr); ok {
		return stripParensAlways(x.X)
	}
	return x
}

func walkBinary(e *ast.BinaryExpr) (has4, has5 bool, maxProblem int) {
	switch e.Op.Precedence() {
	case 4:
		has4 = true
	case 5:
		has5 = true
	}
	switch l := e.X.(type) {
	case *ast.BinaryExpr:
		if l.Op.Precedence() < e.Op.Precedence() {
			break
		}
		h4, h5, mp := walkBinary(l)
		has4, has5, maxProblem = has4 || h4, has5 || h5, max(maxProblem, mp)
	}
	switch r := e.Y.(type) {
	case *ast.BinaryExpr:
		if r.Op.Precedence() <= e.Op.Precedence() {
			break
		}
		h4, h5, mp := walkBinary(r)
		has4, has5, maxProblem = has4 || h4, has5 || h5, max(maxProblem, mp)
	case *ast.StarExpr:
		if e.Op == token.QUO {
			maxProblem = 5
		}
	case *ast.UnaryExpr:
		switch e.Op.String() + r.Op.String() {
		case "/*", "&&", "&^":
			maxProblem = 5
		case "++", "--":
			maxProblem = max(maxProblem, 4)
		}
	}
	return
}

func cutoff(e *ast.BinaryExpr, depth int) int {
	has4, has5, maxProblem := walkBinary(e)
	if maxProblem > 0 {
		return maxProblem + 1
	}
	if has4 && has5 {
		if depth == 1 {
			return 5
		}
		return 4
	}
	if depth == 1 {
		return 6
	}
	return 4
}

func diffPrec(expr ast.Expr, prec int) int {
	x, ok := expr.(*ast.BinaryExpr)
	if !ok || prec != x.Op.Precedence() {
		return 1
	}
	return 0
}

func reduceDepth(depth int) int {
	return max(depth-1, 1)
}

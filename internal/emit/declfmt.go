package emit

import (
	"go/ast"
	"go/token"
	"strings"
	"unicode/utf8"
)

// formatDecl lays out one top-level declaration of the source jennifer renders without
// formatting (jen.File.NoFormat) as gofmt lays it out, for the part of Go the generated
// files use, and reports whether it could: it gives up (ok false) on anything outside that
// part, and the caller formats the declaration with go/format instead. Formatting the
// façade's tens of thousands of lines with go/format was most of a generator run; this
// does the same in a fraction of the time. Each rule below is go/printer's (nodes.go) for
// the case at hand, named after the go/printer function it follows; the tests hold the
// result to go/format's on every generated file they have.
//
// Line breaks are those of the source, as go/printer keeps them: jennifer decides them.
// Alignment (the keys of a composite literal, the fields of a struct) is what go/printer's
// tabwriter would make of the cells.
func formatDecl(tf *token.File, d ast.Decl) (out []byte, ok bool) {
	return new(declPrinter).format(tf, d)
}

// format is formatDecl with p's buffers, which it reuses from one call to the next; the
// result is p's until the next call.
func (p *declPrinter) format(tf *token.File, d ast.Decl) (out []byte, ok bool) {
	p.tf, p.out, p.indent, p.bol = tf, p.out[:0], 0, false
	defer func() {
		if r := recover(); r != nil {
			if _, giveUp := r.(unsupported); !giveUp {
				panic(r)
			}
			out, ok = nil, false
		}
	}()
	p.decl(d)
	return p.out, true
}

// unsupported is the panic with which the printer gives up on a construct.
type unsupported string

type declPrinter struct {
	tf     *token.File
	out    []byte
	indent int
	bol    bool     // at the beginning of a line: indentation not yet written
	spare  [][]byte // buffers for sub, reused
}

func (p *declPrinter) giveUp(what string) { panic(unsupported(what)) }

func (p *declPrinter) line(pos token.Pos) int {
	if !pos.IsValid() {
		return 0
	}
	return p.tf.Line(pos)
}

func (p *declPrinter) write(s string) {
	p.bolIndent()
	p.out = append(p.out, s...)
}

func (p *declPrinter) writeBytes(b []byte) {
	p.bolIndent()
	p.out = append(p.out, b...)
}

func (p *declPrinter) bolIndent() {
	if p.bol {
		for range p.indent {
			p.out = append(p.out, '\t')
		}
		p.bol = false
	}
}

// newlines ends the line and adds n-1 empty ones.
func (p *declPrinter) newlines(n int) {
	for range n {
		p.out = append(p.out, '\n')
	}
	p.bol = true
}

// sub prints f into a buffer of its own, at the current indentation, and returns it;
// release gives the buffer back once written.
func (p *declPrinter) sub(f func()) []byte {
	out, bol := p.out, p.bol
	var buf []byte
	if n := len(p.spare); n > 0 {
		buf, p.spare = p.spare[n-1][:0], p.spare[:n-1]
	}
	p.out, p.bol = buf, false
	f()
	s := p.out
	p.out, p.bol = out, bol
	return s
}

func (p *declPrinter) release(b []byte) {
	if cap(b) > 0 {
		p.spare = append(p.spare, b)
	}
}

func (p *declPrinter) doc(g *ast.CommentGroup) {
	if g == nil {
		return
	}
	for _, c := range g.List {
		// gofmt rewrites doc comments it reads as more than paragraphs (lists, code
		// blocks, headings, directives); plain "// text" lines stay as they are.
		line := strings.TrimRight(c.Text, " ") // jennifer ends a comment with a blank
		text, ok := strings.CutPrefix(line, "// ")
		if !ok || text == "" || strings.ContainsAny(text, "\t\r") {
			p.giveUp("comment")
		}
		if r, _ := utf8.DecodeRuneInString(text); !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			p.giveUp("comment")
		}
		p.write(line)
		p.newlines(1)
	}
}

func (p *declPrinter) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		p.doc(d.Doc)
		p.write("func ")
		if d.Recv != nil {
			p.parameters(d.Recv)
			p.write(" ")
		}
		p.write(d.Name.Name)
		p.signature(d.Type)
		if d.Body == nil || p.line(d.Body.Lbrace) == p.line(d.Body.Rbrace) {
			p.giveUp("one-line function body") // funcBody would align it with a vtab
		}
		p.write(" ")
		p.block(d.Body)
	case *ast.GenDecl:
		p.doc(d.Doc)
		p.genDecl(d)
	default:
		p.giveUp("declaration")
	}
}

// genDecl follows go/printer's genDecl and spec for a single declaration.
func (p *declPrinter) genDecl(d *ast.GenDecl) {
	if d.Lparen.IsValid() || len(d.Specs) != 1 {
		p.giveUp("grouped declaration")
	}
	p.write(d.Tok.String() + " ")
	switch s := d.Specs[0].(type) {
	case *ast.ValueSpec:
		if s.Doc != nil || s.Comment != nil {
			p.giveUp("spec comment")
		}
		p.identList(s.Names)
		if s.Type != nil {
			p.write(" ")
			p.expr(s.Type)
		}
		if s.Values != nil {
			p.write(" = ")
			p.exprList(token.NoPos, s.Values, 1, false, token.NoPos)
		}
	case *ast.TypeSpec:
		if s.Doc != nil || s.Comment != nil || s.TypeParams != nil {
			p.giveUp("type spec")
		}
		p.write(s.Name.Name + " ")
		if s.Assign.IsValid() {
			p.write("= ")
		}
		p.expr(s.Type)
	default:
		p.giveUp("spec")
	}
}

func (p *declPrinter) identList(names []*ast.Ident) {
	for i, n := range names {
		if i > 0 {
			p.write(", ")
		}
		p.write(n.Name)
	}
}

// parameters follows go/printer's parameters for a list on one line.
func (p *declPrinter) parameters(fields *ast.FieldList) {
	if p.line(fields.Opening) != p.line(fields.Closing) {
		p.giveUp("parameters on several lines")
	}
	p.write("(")
	for i, par := range fields.List {
		if i > 0 {
			p.write(", ")
		}
		if len(par.Names) > 0 {
			p.identList(par.Names)
			p.write(" ")
		}
		p.expr(stripParensAlways(par.Type))
	}
	p.write(")")
}

// signature follows go/printer's signature.
func (p *declPrinter) signature(sig *ast.FuncType) {
	if sig.TypeParams != nil {
		p.giveUp("type parameters")
	}
	if sig.Params != nil {
		p.parameters(sig.Params)
	} else {
		p.write("()")
	}
	res := sig.Results
	if n := res.NumFields(); n > 0 {
		p.write(" ")
		if n == 1 && res.List[0].Names == nil {
			p.expr(stripParensAlways(res.List[0].Type)) // a single anonymous result: no ()
			return
		}
		p.parameters(res)
	}
}

// block follows go/printer's block and stmtList: statements one a line, at most one
// empty line kept between them.
func (p *declPrinter) block(b *ast.BlockStmt) {
	p.write("{")
	p.indent++
	prev := p.line(b.Lbrace)
	for _, s := range b.List {
		if _, empty := s.(*ast.EmptyStmt); empty {
			continue
		}
		p.newlines(min(max(p.line(s.Pos())-prev, 1), 2))
		p.stmt(s)
		prev = p.line(s.End())
	}
	p.indent--
	p.newlines(min(max(p.line(b.Rbrace)-prev, 1), 2))
	p.write("}")
}

// funcBody follows go/printer's funcBody and bodySize for a function literal: on one
// line when it is on one line in the source and the header and statements fit in 100
// bytes.
func (p *declPrinter) funcBody(headerSize int, b *ast.BlockStmt) {
	const maxSize = 100
	if p.line(b.Lbrace) == p.line(b.Rbrace) && len(b.List) <= 5 {
		size := headerSize
		stmts := make([][]byte, len(b.List))
		for i, s := range b.List {
			if i > 0 {
				size += 2
			}
			stmts[i] = p.sub(func() { p.stmt(s) })
			size += oneLineSize(stmts[i], maxSize)
			if size > maxSize {
				break
			}
		}
		fits := size <= maxSize
		if fits {
			p.write(" {")
			if len(stmts) > 0 {
				p.write(" ")
				for i, s := range stmts {
					if i > 0 {
						p.write("; ")
					}
					p.writeBytes(s)
				}
				p.write(" ")
			}
			p.write("}")
		}
		for _, s := range stmts {
			p.release(s)
		}
		if fits {
			return
		}
	}
	p.write(" ")
	p.block(b)
}

// oneLineSize is the size of printed text on one line, or more than maxSize if it spans
// lines (go/printer's nodeSize).
func oneLineSize(b []byte, maxSize int) int {
	for _, c := range b {
		if c == '\n' {
			return maxSize + 1
		}
	}
	return len(b)
}

func (p *declPrinter) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.ExprStmt:
		p.expr0(s.X, 1)
	case *ast.ReturnStmt:
		p.write("return")
		if s.Results != nil {
			p.write(" ")
			if p.indentList(s.Results) {
				p.giveUp("return list broken over lines")
			}
			p.exprList(token.NoPos, s.Results, 1, false, token.NoPos)
		}
	case *ast.AssignStmt:
		depth := 1
		if len(s.Lhs) > 1 && len(s.Rhs) > 1 {
			depth++
		}
		p.exprList(s.Pos(), s.Lhs, depth, false, s.TokPos)
		p.write(" " + s.Tok.String() + " ")
		p.exprList(s.TokPos, s.Rhs, depth, false, token.NoPos)
	case *ast.IfStmt:
		if s.Else != nil {
			p.giveUp("else")
		}
		p.write("if ")
		if s.Init != nil {
			p.stmt(s.Init)
			p.write("; ")
		}
		p.expr(stripParens(s.Cond))
		p.write(" ")
		p.block(s.Body)
	case *ast.DeclStmt:
		p.genDecl(s.Decl.(*ast.GenDecl))
	case *ast.BlockStmt:
		p.block(s)
	default:
		p.giveUp("statement")
	}
}

// indentList follows go/printer's indentList: whether a return's results would be
// indented as a whole.
func (p *declPrinter) indentList(list []ast.Expr) bool {
	if len(list) < 2 {
		return false
	}
	b, e := p.line(list[0].Pos()), p.line(list[len(list)-1].End())
	if b >= e {
		return false
	}
	n, line := 0, b
	for _, x := range list {
		xb, xe := p.line(x.Pos()), p.line(x.End())
		if line < xb {
			return true
		}
		if xb < xe {
			n++
		}
		line = xe
	}
	return n > 1
}

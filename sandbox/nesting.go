package sandbox

import (
	"fmt"
	"strings"

	"github.com/cordiskit/cordiskit/sandbox/internal/jslex"
	"github.com/dop251/goja"
)

// goja parses and compiles by recursion, so source text nested deep enough overflows the Go
// stack, a fatal error no recover catches, before any time bound applies; its compiler's
// work grows with the square of the depth for some shapes. jslex.CheckNesting measures
// both on the tokens, in one linear pass, before the parser sees mount code (precheck),
// text handed to eval or a Function constructor (compilerGuard.check) and, by brackets
// only, text handed to JSON.parse (guardJSON).

// nestingSyntaxError turns a nestingError into a positioned *SyntaxError that says how to
// flatten the code.
func nestingSyntaxError(id, code string, ne *jslex.NestingError) *SyntaxError {
	line, col := jslex.Position(code, ne.Off)
	src := code[strings.LastIndexByte(code[:ne.Off], '\n')+1:]
	if end := strings.IndexByte(src, '\n'); end >= 0 {
		src = src[:end]
	}
	e := &SyntaxError{Mount: id, Line: line, Column: col, Message: ne.Msg,
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
		if jslex.JSONDeeper(text.String(), max) {
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

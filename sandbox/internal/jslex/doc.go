// Package jslex measures JavaScript source text before goja parses it, for package
// sandbox: goja parses and compiles by recursion, so text nested deep enough overflows the
// Go stack (a fatal error no recover catches) before any time bound applies. The calls:
//
//	if ne := jslex.CheckNesting(code, max, maxWork); ne != nil { … } // refuse: ne.Off, ne.Msg
//	msg := jslex.BracketProblem(code)                                // for a parse error's hint
//	r := jslex.Reaches(code)                                          // the constructors code may reach
//	deep := jslex.JSONDeeper(text, max)                               // before JSON.parse
//
// A small lexer splits the text into the tokens these checks need: brackets, punctuators,
// words and values. Strings, template text, comments and regular expression literals are
// skipped as units, so brackets inside them are not counted. It validates nothing (the
// parser does); it only has to agree with the parser about where code is.
//
// Positions are byte offsets; [Position] turns one into the 1-based line and character
// column a message shows.
package jslex

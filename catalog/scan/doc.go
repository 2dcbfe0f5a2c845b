// Package scan is gen-cordis-api's source walker: it loads Go packages once and builds
// the [catalog.Catalog] of the events, services and tools they declare with the kit's
// constructors, or reports, all at once, why it cannot.
//
//	res, err := scan.Load(ctx, &scan.Config{Dir: ".", Patterns: []string{"./..."}})
//	var ds scan.Diagnostics
//	if errors.As(err, &ds) { fmt.Println(ds.Rel(cwd)) } // path:line:col: [rule] message
//
// # One load
//
// Load makes a single packages.Load with the explicit [Mode] (names, files, syntax, types,
// type info, module) and no NeedDeps: the matched packages are parsed and type-checked
// from source, their dependencies come from export data. The kit package is added to the
// same load, so the doc comments of kit types a runtime's signatures use are readable and
// the kit's own declarations can be listed as the inherited tier ([Result.Inherited]).
//
// The parser skips the generator's own outputs: a catalog_gen.go or facade_gen.go whose
// first line is gen-cordis-api's header is reduced to its imports and its one exported
// variable. Those files are never input; they are the largest files of their package; and
// a stale one whose compile-time guard no longer compiles must not stop the run that
// regenerates it.
//
// # What is a declaration
//
// A package-level variable whose type is one of the kit's declaration types —
// *kit.Event[P] (emit), *kit.ParallelEvent[P], *kit.SerialEvent[P, R], *kit.BailEvent[P, R],
// *kit.WaterfallEvent[P, R], *kit.Service[T] or *kit.ToolDecl[In, Out] — initialised by a
// call whose first argument is a constant string: the event name, service key or tool
// name. Recognition goes by the variable's type, through go/types, so aliases of the kit's
// types and wrappers of its constructors work like the originals; the name may be any
// constant expression (agentNS + "error"). A variable initialised from another variable
// (var X = other.Y) re-exports a declaration and is not one itself.
//
// The payload P of an event is a struct whose fields, in order, are the parameters a
// JavaScript listener receives. A service's methods are the exported methods of T (of *T
// for a struct), in declaration order, minus those marked //cordis:internal; a leading
// context.Context makes a method async, a *kit.Context parameter is supplied by the
// binding. Docs come from go/doc: Doc is the comment's text, Summary its first sentence.
//
// # Rules
//
// Every problem is a [Diagnostic] with a position, a rule and a message that says how to
// fix it; Load reports them all, sorted, and builds nothing:
//
//   - load: the packages do not build.
//   - name: a name or key is not a non-empty constant string.
//   - doc: an event, service, JavaScript-facing method, tool or referenced type has no doc
//     comment.
//   - type: a referenced type cannot be documented (anonymous, or declared in a package
//     the load did not parse).
//   - unsupported: a shape that cannot cross into JavaScript — channels, unexported or
//     generic types, interfaces other than error and any, funcs other than callback
//     parameters and func() results, maps without string keys, []byte, complex numbers,
//     variadic methods, a context.Context that is not first, more than one result besides
//     a found bool and an error, error values in tool types.
//   - duplicate: two declarations share an event name, service key or tool name, two
//     types one name, or two fields one JavaScript or JSON name.
//   - output: the output package declares something, or a package that declares
//     something imports the output package (the generated code imports what it
//     catalogs, so either is an import cycle).
//
// # The first run
//
// The wiring of a runtime (toolset.Options{Catalog: cordisapi.Catalog}) is written
// before anything is generated, so the first load sees it use a package or variables
// that do not exist yet. Those type errors, and only those, are dropped ([Config.Out]):
// each is matched by its position to the import of the output package or to a selector
// of a generated variable whose file is missing, so every other build error is still
// reported.
package scan

// Package catalog is the data model of a cordiskit runtime's declared API: its events,
// services, tools and the type shapes their signatures reference. gen-cordis-api fills a
// Catalog from Go source and writes it as Go data (catalog_gen.go); the running program
// reads it, for example to answer cordis_inspect:
//
//	ev, ok := generated.Catalog.Event("tools/change")   // mode, JS signature, doc
//	svc, ok := generated.Catalog.Service("timer")       // methods with JS signatures
//	shapes := generated.Catalog.TypeClosure(svc.Signatures()...)
//
// The package is plain data plus lookups and depends on the standard library only, so a
// runtime that only runs never pulls in the generator's dependencies.
//
// # Entries
//
// An [Event] has a name ("agent/error"), a dispatch [Mode], the positional parameters a
// JavaScript listener receives (the fields of its Go payload struct, in order) and its
// JavaScript signature. A [Service] has a key ("fs"), its Go type, whether it is an
// abstract seam (an interface implemented by another plugin) and its JavaScript-facing
// [Method]s. A [Tool] has a name, a description and the JSON Schemas (draft 2020-12) of
// its input and output. A [Type] is the shape of a named Go type a signature references:
// its fields with JavaScript types and docs, or its enum values, and its declaration text.
//
// Every entry records the Go declaration it came from ([Ref] and [GoType], with full
// import paths, enough to generate code against), its doc comment (Doc, the original
// text) with a one-sentence Summary, and its Source. Source is the module-relative
// "path:line" in a freshly scanned catalog; a generated catalog keeps only the path,
// because line numbers shift with every unrelated edit and would make the generated file
// stale for no reason (the markdown catalog, which people read, keeps the line).
//
// # Order
//
// A generated catalog is sorted bytewise: events and tools by name, services by key, types
// by name. Methods keep their declaration order, as the markdown catalog shows them.
// Lookups do not depend on the order.
//
// # JavaScript names and types
//
// Parameter and field names in JavaScript are the json tag name when there is one, else
// the Go name in lowerCamel case ("ID" → "id", "HTTPServer" → "httpServer"). JavaScript
// types follow the binding contract of package sandbox: numbers for every Go integer and
// float, time.Duration in milliseconds, Error for error, unknown for any and
// json.RawMessage, T[] for slices, Record<string, V> for maps, the element type for a
// pointer (nil is null), callbacks as arrow types, and the Go name for every named type,
// whose shape is in [Catalog.Types].
package catalog

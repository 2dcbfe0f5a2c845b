// Package emit renders a [catalog.Catalog] into gen-cordis-api's outputs. Every renderer
// is a pure function of the catalog and the header line it writes first:
//
//	emit.Schemas(cat)                        // tool JSON Schemas, into the catalog
//	src, err := emit.CatalogGo(cat, "api", header)
//	fac, err := emit.FacadeGo(cat, "api", header)
//	md := emit.EventsAndServices(cat, inherited, header)
//
// # catalog_gen.go
//
// [CatalogGo] writes var Catalog = &catalog.Catalog{…}: one package-level variable per
// entry and per distinct Go type, named after what it holds (cordisEventAgentError,
// cordisSliceOfString), so the file is flat and a change touches few lines. The entries
// name no package but catalog and are written directly as text, laid out as gofmt lays
// them out (catalogtext.go). Sources keep only the file: line numbers would make the file
// stale on every unrelated edit.
//
// A compile-time guard, func _(), states the type of every declaration, method, field and
// enum constant the catalog was built from, so a stale catalog breaks go build of the
// generated package (verify-cordis-api catches what compiles, such as a changed doc).
//
// # facade_gen.go
//
// [FacadeGo] writes the sandbox whitelist, following the binding contract of package
// sandbox/bind: a ServiceBinder per service that builds a JavaScript object holding only
// the catalogued methods — one generic helper call a method (bind.Func1, bind.Async2, …)
// with its argument readers, the method adapted to func(…) (R, error) and the result's
// builder — and an EventAdapter per event (bind.OnEmit, bind.OnWaterfall, …) with a
// function that turns each Go payload into positional arguments. Sync methods run through
// Realm.Unlocked (the lock released, so they may emit back into JavaScript), context-taking
// ones on a goroutine the sandbox owns (bind.Async1, …: JavaScript gets a Promise);
// callbacks are delivered with emit semantics (bind.DeliverEmit); a returned func()
// becomes a JavaScript disposer. Go values cross as plain objects built field by field,
// never by reflection: a helper per catalogued struct, enum or value type, slices, maps
// and pointers composed by bind. For each interface service (an abstract seam) it also
// writes a bind.SeamAdapter and an unexported Go type implementing the interface by
// calling, through bind.Seam (bind.Ask, bind.Tell, …), the object a mount provided with
// ctx.provide(key, obj): the same conversions in the other direction, the result's path
// in errors.
//
// # Layout without gofmt
//
// The generated Go files are gofmt'ed, but running gofmt over them was most of a
// generator run. Both are written as text laid out as gofmt lays it out (catalogtext.go,
// facadetext.go), following go/printer's rules for the part of Go they use. Their
// imports are named by jennifer, given the order the text first refers to them in
// (writeGo, importHead), so they are the names a jen.File of the same code would give.
// The tests compare every generated Go file they have with go/format's formatting of it.
//
// # Tool schemas
//
// [Schemas] derives a JSON Schema (draft 2020-12) for every tool's input and output from
// the catalog's type shapes — property names as encoding/json spells them, field docs as
// descriptions, enums from const sets (with what each constant's doc says it means in the
// description: One of: "plain"; "loud": upper case.), optional fields from pointers and
// omitempty — and validates each by parsing it back and resolving it with jsonschema-go.
//
// # Markdown
//
// [EventsAndServices] writes the events grouped by namespace with the dispatch-mode
// legend, doc, JavaScript signature, parameter docs, type links and source; the services
// with their methods; the type shapes; and the inherited tier. [ToolCatalog] writes every
// tool with its description, a parameter table and both schemas.
package emit

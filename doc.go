// Package cordiskit is the assembly point of a cordiskit runtime: one constructor that
// wires the pieces a runtime author asks for onto a kit root — the mount tools, the
// dynamic-plugin runner and its store, an invoker for an agent loop, the panel, MCP on
// stdio or HTTP — exposes each piece, and one Close that shuts them down in the right
// order. It is to the kit what mcp.NewServer is to the MCP Go SDK.
//
// The first calls a runtime author makes:
//
//	rt, err := cordiskit.New(nil, &cordiskit.Options{Catalog: cordisapi.Catalog, Facade: cordisapi.Facade})
//	if err != nil { … }
//	defer rt.Close(ctx)
//	err = cordiskit.AddTool(rt, helpdesk.OpenTicket, openTicket)        // a tool declared in Go, described by its doc comment
//	out, err := rt.Invoker().InvokeSession(ctx, session, name, argsJSON) // an agent loop's call
//	err = rt.ServeMCP(ctx, &mcp.StdioTransport{})                        // or serve the tools over MCP
//
// # What New wires
//
// A nil *Options means defaults: the ten cordis tools — the toolset's three
// (cordis_inspect, cordis_mount, cordis_unmount: throw-away mounts) and the runner's
// seven (cordis_define, cordis_run, …: versioned Plugins a session keeps) — with the
// runner's definitions in memory, no panel, and no MCP server. Each field of Options asks
// for one more piece or configures one:
//
//   - Catalog and Facade: the runtime's generated catalog and façade, given to both tool
//     sets (the kit's core tier is merged in).
//   - Mounts and NoMounts: the toolset's options, or no toolset.
//   - Runner and NoRunner: the runner's options, or no runner (and then no panel).
//   - StoreFile: the runner keeps its definitions in that SQLite file (runner/sqlstore),
//     which the Runtime opens and closes.
//   - Panel and PanelListener: the panel over the runner, served on the listener.
//   - MCP: what ServeMCP and ServeMCPHTTP serve with; nil means they refuse.
//
// Each piece is the one its own package documents, with the same options and the same
// limits; the accessors (Root, Toolset, Runner, Invoker, Panel, Catalog) hand it out.
// Nothing New wires changes what a session sees: tools, services, events and the panel
// stay scoped to their session exactly as the kit, the runner and the panel say.
//
// # The gate
//
// A runtime that runs its own policy hook before every tool call (a waterfall event such
// as tools/pre-execute) runs it with GateContext, so that listeners written by mounts or
// host halves never stand between the model and the cordis tools that inspect, stop and
// remove them:
//
//	ctx = rt.GateContext(ctx, tool) // then emit the gate with ctx
//
// # Tools declared in Go
//
// AddTool registers a tool declared with kit.NewTool and catalogued by gen-cordis-api in
// one call: the catalog's doc comment is its description, the schemas are derived from
// its Go types, and a catalog that does not describe those types (generated before the
// declaration changed) is an error that says to run go generate. The tool is the
// runtime's own: every session sees it, and Close removes it.
//
// # Closing
//
// Close shuts everything New started down, in this order, and returns every failure
// joined:
//
//  1. the MCP servers ServeMCP and ServeMCPHTTP run: their contexts are cancelled and
//     Close waits for them to return (open calls are cancelled first);
//  2. the panel: its event streams end, then its server (PanelListener) shuts down;
//  3. the runner: every run stops and every pending request is cancelled;
//  4. the toolset: every mount is unmounted;
//  5. the tools AddTool registered, then the invoker;
//  6. the root, when New made it (root nil); a root passed to New stays the caller's;
//  7. the store, when New opened it (StoreFile), after everything that writes to it.
//
// ctx bounds every wait: when it ends, Close still takes every piece down and returns
// the context's error with the others. Close may be called any number of times, from any
// goroutine: every call returns the first call's result once it is complete (or its own
// ctx's error, if that ends first). After Close began, ServeMCP, ServeMCPHTTP and AddTool
// fail with ErrClosed.
package cordiskit

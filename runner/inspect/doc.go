// Package inspect is the inspect registry of the dynamic-plugin runner: the providers a
// model reads with cordis_inspect_list and cordis_inspect_query before it writes a Package
// (docs/dynamic-plugins.md, "Inspect providers"). The runner builds one per process; a
// runtime adds a provider of its own through it:
//
//	unregister, err := r.Inspect().Register(inspect.Provider{
//		Manifest: inspect.Manifest{ID: "Slots", Description: "…", Methods: methods},
//		Query: func(ctx context.Context, call inspect.Call) (any, error) { … },
//	})
//
// # Providers and the registry
//
// A Provider describes one host provider once — its Manifest (id, description, methods
// with their input and output JSON Schemas) and the function that answers — and the
// Registry runs it, as go/analysis describes an Analyzer and a driver runs it. Register
// checks and copies the manifest and compiles its schemas once; Query checks, in order,
// the platform, the provider, the method and the input against its schema, asks the
// provider on the caller's goroutine (a panic is its error) and checks the answer against
// the output schema. New registers the first-party providers Service, Event, Builtin and
// Tool over the runtime's catalog merged with the kit's core tier.
//
// # Client providers
//
// A page's providers live in the page. ConnectPage gives a page an id (a secret, valid
// while the context the panel passes lives); SyncManifest replaces what that page
// publishes; a client query is announced with the Query event to the pages that publish
// its method and settles on the first valid ResolveQuery answer, on a failure from every
// page asked, on the tool call's end, or after Options.QueryTimeout; QueryResolved tells
// the pages. Each page's manifest is its own and leaves with the page, so no page can
// overwrite or outlive another's. Close settles every pending query and waits for the
// pages' disconnect callbacks.
//
// # Sessions
//
// The registry belongs to the process: every session reads the same host providers, and a
// provider gets the calling session in Call.Session. A client query carries its session,
// and only a page that was asked answers it, once; the panel has a page open for one
// session decline every other session's query at once.
package inspect

// Package kit is cordiskit's runtime core: a cordis-style plugin runtime in Go, with
// contexts, fibers, effects, typed events, typed services, a tool registry and timers.
//
// The first calls a user makes:
//
//	root := kit.New(nil)                                 // a runtime; its root Context
//	fiber := root.Plugin(&kit.Plugin{Name: "greeter", Apply: apply})
//	defer fiber.Dispose(ctx)                             // returns at quiescence
//
// # Declarations
//
// Events, services and tools are declared once, as typed package-level variables whose
// doc comments are their documentation. The type carries the payload and the dispatch
// mode, so the compiler checks Go callers and gen-cordis-api reads the same facts:
//
//	// AgentError reports that a step or turn failed.
//	var AgentError = kit.NewEvent[AgentErrorEvent]("agent/error")
//	// FS is the abstract filesystem seam.
//	var FS = kit.NewService[FileSystem]("fs")
//	// Echo returns its input.
//	var Echo = kit.NewTool[EchoInput, EchoOutput]("echo")
//
// # Dispatch modes
//
// NewEvent declares an emit event (fire and forget: Emit waits for no listener's
// asynchronous work, such as a JavaScript listener's promise; a panicking listener is
// recovered and logged). NewParallel is awaited fan-out with errors joined; NewSerial is awaited in
// registration order until a listener returns a bail value (a non-zero result) or an error;
// NewBail is synchronous and returns the first non-zero result; NewWaterfall hands each
// listener a next func that runs the rest of the chain, so a listener that does not call it
// short-circuits; next runs the rest of the chain once per listener call, and later calls
// replay its result. Dispatch iterates an immutable snapshot of the listeners; an event
// with no listeners costs a few loads and no allocation. An awaited emit whose ctx comes
// from WithoutListenersOf passes over the listeners of the given fibers' subtrees.
//
// # Fibers and effects
//
// Every registration — a listener, a provided service, a tool, a timer, a child plugin, an
// Effect — is owned by exactly one fiber. Disposing a fiber reverses them newest first
// (children before parents) and returns only at quiescence: no listener, timer callback or
// tool body of the fiber is running and none will run. A failing Apply rolls back what it
// registered and leaves the fiber failed.
//
// # Services and injection
//
// A plugin lists the services it needs in Plugin.Inject. Its fiber stays pending until all
// are provided by active fibers, loads when they appear, unloads back to pending (its
// effects reversed) when one goes away and loads again when it returns. A provider's
// services are hidden before anything else of it is torn down, so its dependents settle
// first. Transitions of one fiber never overlap.
//
// # Sessions
//
// A runtime that serves many people gives each caller a session (WithSession on the call's
// context) and runs what a session's model wrote in fibers of that session
// (Plugin.Session; a fiber's children inherit it, and a session's fiber cannot start a
// plugin of another). Fibers without a session are the runtime's own and shared by all.
// The rule: nothing a session's fibers register observes or affects another session.
//
//   - Events. A payload field of type Session makes an event session-scoped: an emit
//     reaches the runtime's own listeners and those of the session the field names, never
//     another session's; an empty Session is a runtime-wide emit that reaches every
//     listener. An awaited emit (parallel, serial, waterfall) of an event without such a
//     field, made with a session on its ctx, reaches that session's listeners and the
//     runtime's own. So a session's listener can neither read nor veto nor fail another
//     session's calls. gen-cordis-api marks scoped events in the catalog and the docs.
//   - Services. A service a session's fiber provides is seen (Get, Inject) by that
//     session's fibers only, unless its plugin declares the key shared (Plugin.Shares):
//     the runtime author's decision, which the runner and the toolset pass on from their
//     options. Sessions may provide the same private key side by side, and a session
//     cannot provide a key the runtime provides. The runtime's own services are shared.
//   - Tools. A session's tools are listed, described and called only through its view of
//     the registry (Tools.Session, and the "tools" service as its fibers get it); tool names
//     are one namespace, and a name another session holds is refused without naming it.
//     ToolsChange is scoped: a session hears of its own tools and the runtime's.
//
// Fibers and Services list every session's (with FiberInfo.Session and
// ServiceInfo.Session), for the runtime's own code; what a session reads of them is
// filtered by the code that shows it (the toolset's cordis_inspect).
//
// # Concurrency
//
// Everything is safe for concurrent use. The kit starts no goroutines of its own except the
// listeners of a parallel dispatch, which Emit waits for, and timer callbacks, which the
// owning fiber's disposal waits for.
package kit

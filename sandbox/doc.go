// Package sandbox runs model-written JavaScript plugins in goja realms, one per mount, and
// is the only way from that JavaScript into Go: through the generated façade.
//
// The first calls a user (the toolset) makes:
//
//	sb := sandbox.New(&sandbox.Options{Facade: generated.Facade}) // see [Options.Validate]
//	defer sb.Close(ctx)
//	m, err := sb.Evaluate(ctx, "dyn-1", code) // compile, run the body, validate the plugin
//	fiber, err := m.Start(ctx, parent)          // a child plugin of parent (a *kit.Context); apply runs the JS apply through a fresh ctx façade
//	…
//	fiber.Dispose(ctx)
//	m.Close(ctx)
//
// [Mount.Start] waits for the plugin to settle and, when it fails, disposes its fiber and
// closes the mount itself. [New] panics on invalid [Options]; a host configured by its
// users calls [Options.Validate] first.
//
// # The lock
//
// The realms of a session share one lock (see "Engines per session"): at most one
// goroutine runs their JavaScript at a time, and any goroutine may enter (there is no
// owner goroutine, so delivering a Go event to a JS listener costs a lock, not a channel
// handoff). A native function that calls into Go releases the lock around the call
// ([Realm.Unlocked]), so a Go method that emits back into JavaScript — even into the
// calling realm — re-enters inline. goja drains a realm's promise jobs when its outermost
// call returns. Context-taking Go methods run on goroutines the sandbox owns and settle
// their promise by re-entering under the lock. The lock, the entries that time each call
// and the watchdog live in an internal package, sandbox/internal/engine, whose
// documentation states their invariants.
//
// # Engines per session
//
// Each session's realms run in an engine of their own — its lock, its watchdog, its
// realms — and the runtime's own realms (no session) in one more: one session's JavaScript
// never waits for another session's, and sessions run in parallel on separate cores. A
// session's call waits for its own session's JavaScript only (a call in progress, at most
// its bound); other sessions' JavaScript competes with it for the cores only, as any
// goroutine does. [Sandbox.Engines] counts the engines: one is made with a session's first
// realm and retired when its last realm closes (the runtime's own stays until Close).
//
// Within a session nothing changes: one lock, cross-mount calls through the membrane, the
// excuses of time spent in other mounts' listeners. Across engines, a service a session's
// mount provides and the runtime author declares shared (Plugin.Shares), or one of the
// runtime's own mounts, is reached through the same membrane with the same results; each
// call into it leaves the caller's engine as a Go call does and takes the provider's
// (never both locks at once, so two sessions calling each other's services at once do not
// deadlock), and the time it waits for the provider's engine and runs there counts against
// the caller's bound, as time in Go does: a caller that chose another session's service
// waits for that session's JavaScript in progress, as every caller of that service does.
//
// # Time bounds
//
// Every entry into JavaScript is bounded ([Timeouts]): VM for the synchronous evaluation of
// mount code, Mount for the body's promise and apply, Call for every later entry — a
// listener, a tool's execute, a timer callback, a cross-mount call. An entry that exceeds
// its bound is interrupted (goja's Runtime.Interrupt), fails with an error for which
// errors.Is(err, context.DeadlineExceeded) holds, and the realm and sandbox keep serving.
// Unbounded recursion ends the entry with a *goja.StackOverflowError ([Limits]). Time an
// entry spends out in a Go call while another mount's listener of its engine runs inline is
// not charged to it, up to its own bound once: whatever other mounts do, an entry ends
// within about three times its bound (its own, the excuse, the foreign run in progress).
//
// A thrown or rejected value is described for Go without running the mount's code: an
// Error by its own data name, message and stack, another object as [object Ctor], a Proxy
// as [object Proxy]; messages are capped at 4 KiB and stacks at 8 KiB. A Go panic on the
// way through an entry becomes its error; no panic leaves the sandbox's lock held.
//
// # Memory
//
// goja cannot cap a realm's heap (its objects are Go objects), so every entry is bounded
// by what it may allocate instead: an entry charged more than Limits.MaxEntryAlloc
// (default 256 MiB) is interrupted like one past its time bound and fails with an
// *AllocError — "dyn-3: a listener allocated more than 256 MiB in one call
// (Limits.MaxEntryAlloc) and was stopped; build the data in smaller pieces …" — and the
// realm and sandbox keep serving. It counts as a strike (below). An entry is charged,
// from the watchdog's first sample after it began, what was allocated and that no garbage
// collection has shown to be garbage: memory it keeps, all of it; garbage, only about what
// accumulated since the last collection. The watchdog samples runtime/metrics every tick
// (a sixteenth of the smallest time bound, at most 10 ms) and nothing on the entry path
// (the cost, beside entries with no budget: BenchmarkEntryAllocBudget in
// sandbox/internal/engine), so the bound holds to within about two ticks of allocation:
// some 15 MB at goja's fastest.
//
// What it catches: one entry building or keeping too much — a loop that pushes into an
// array, a string doubled until it is huge, a host half whose body allocates until the
// process dies (one reached 1.26 GB in 5 s before this bound). What it does not:
//
//   - The counters are the whole process's: an entry is also charged what other
//     goroutines allocate while it runs — the Go calls it makes, async Go calls, the
//     JavaScript of other sandboxes (other sessions' engines) running in parallel, the
//     host. Within this sandbox only the lock holder runs JavaScript, and what another
//     mount's listener allocates inline while an entry is out in a Go call is excused
//     from it when that listener's entry ends (up to the budget once), as its time is.
//     Most entries last milliseconds, so only a long entry is exposed, and only to
//     allocation of hundreds of MiB meanwhile; but a session that allocates just under
//     the budget in parallel can push another session's long entry over it.
//   - A single native call allocates at once: an interrupt waits for the next JavaScript
//     instruction ('x'.repeat(2 ** 28) is 256 MiB in one step; Limits.MaxBytes bounds
//     only what crosses into Go).
//   - Memory kept across many entries (a slow leak: each entry is judged alone), and
//     memory a realm keeps once its entry was stopped (a global it filled stays until the
//     mount is closed).
//   - Garbage no collection has seen yet: in a process whose live heap is near the budget
//     or larger, collections are that far apart, and an entry that only churns can be
//     stopped; so can one that makes garbage at GB/s (large typed arrays), faster than
//     collections complete.
//
// # Strikes and shares
//
// One lock serves every realm of a session, so a mount that holds it delays all the others
// of its session (see "Engines per session"; other sessions' not at all). Two rules bound
// how often one mount may do so. Both judge a run by its entry's time less the time
// excused (above), as its bound does: the time it held the lock, and the time it spent in
// synchronous Go calls while no other mount ran.
//
// A run of a listener, a timer callback or a tool's execute strikes when it ran into
// CallTimeout and was interrupted, used more than half of it, or returned a promise that
// did not settle within it. After three strikes in a row a listener is removed and a timer
// cancelled (reported in the mount's log and to Options.OnError), and a tool (registered
// with ctx.tools.register, or harness.registerTool) is struck out: it stays registered,
// so that whoever calls it learns why, but every later call fails at once, without taking
// the lock, with a *StruckOutError that says what its calls did and what to do — return
// sooner (split the work, or await between parts), then unmount the plugin and mount the
// fixed code. The striking call fails with that error too, its result discarded, and a
// call that was waiting for the lock does not run. A run that ends within half its bound
// clears the strikes; a tool call whose caller gave up first neither strikes nor clears.
// So a tool holds the lock for at most three runs in a row, however many clients call it.
//
// A mount's timer callbacks (one activation's ctx.setTimeout and ctx.setInterval) run one
// at a time: a run is reserved before its callback waits for the lock and released when
// the callback returns, so however many of its timers are due, at most one waits for or
// holds the lock. Each run's time adds to a debt that is paid off at
// Limits.MaxTimerShare percent of the wall time, and no run starts while the debt is
// CallTimeout or more (the first delay is logged): the callbacks hold the lock at most
// MaxTimerShare of the time, from idle in a burst of at most
// CallTimeout×100/(100−MaxTimerShare) plus one run.
//
// The bound: an entry of another mount (a tool call, a listener) waiting for the lock
// waits, for the timer callbacks of one mount or the back-to-back calls of one client, at
// most two of their runs, 2×(CallTimeout plus a tick): the run in progress and — Go's
// mutex may let an arriving goroutine take the lock once ahead of the woken waiter before
// it hands the lock over in arrival order — one more. With several such mounts or clients
// it waits that long for each. JavaScript that runs after an await of a Go call (ctx.sleep,
// an async Go method) runs in an entry of its own, charged to no listener, timer or tool:
// neither rule sees it (docs/rough_edges.md).
//
// # The ctx façade
//
// apply(ctx) receives a read-only object with exactly: on and once (catalogued events only,
// through the Facade's EventAdapters), provide, get, effect (a disposer run when the plugin
// unloads), tools (the catalogued tools service through the Facade's binder, plus the
// JavaScript-only register; no tool's execute is reachable), setTimeout,
// setInterval and sleep (which need inject: ['timer']) and the services named in inject.
// Reading anything else throws at read time, telling "exists but not injected — add it to
// inject" from "does not exist". A service another mount provided is reached through a
// membrane (see Provided); a Go service through its generated ServiceBinder. ctx.provide
// under the key of a catalogued interface service (an abstract seam) checks the object
// against the interface — every catalogued method a function — and provides a Go value of
// the interface that calls it (see [Facade].Seams), so Go code and Go plugins consume a
// JavaScript implementation through Service.Get and Inject; a concrete Go service cannot be
// provided from JavaScript.
//
// # Bindings
//
// What mount code reaches in Go is a [Facade]: a [ServiceBinder] per service, an
// [EventAdapter] per event and a seam adapter per interface service. They are written by
// gen-cordis-api (facade_gen.go) against package sandbox/bind, the binding contract,
// which only generated code imports — or by hand, following bind's documentation. This
// package keeps what a binding shares with the runtime author's own natives and the
// runner: [Realm.Func] makes a native function (a Go panic in it becomes a JS Error naming
// the method), [Realm.Unlocked] calls Go with the lock released, [Realm.Deliver] enters
// a realm from Go for an awaited dispatch, waiting bounded for a returned promise,
// [Realm.Do] runs a closure with the realm's runtime in an entry of its own (the one way
// Go code outside a binding touches the runtime: none is handed out),
// [Realm.CheckTool] checks a tool definition, and [FromJSON] and [ToJSON] convert JSON
// data. bind adds the rest: argument readers and result builders (a wrong type throws a
// TypeError naming the method and parameter), one budget per composite argument, a
// Promise for a context-taking method, fire-and-forget delivery of emit-mode events and
// callbacks (failures and rejections logged with the mount id and passed to
// Options.OnError), and the Go side of an interface service implemented in JavaScript. Go
// values cross only as plain data or as those whitelisted bindings: never as reflected Go
// objects.
//
// # Limits (rough edges)
//
//   - goja cannot cap a runtime's heap: one entry is bounded by Limits.MaxEntryAlloc (see
//     Memory), but not one native call ('x'.repeat(2 ** 30) is one uninterruptible
//     allocation) nor memory kept across entries. The sandbox caps what it controls: the
//     size of strings and JSON crossing the boundary and of mount code (Limits.MaxBytes),
//     the output of every conversion — a Go method's argument, a JSON
//     document, a value crossing the membrane — at Limits.MaxNodes elements and MaxBytes
//     bytes of strings, counted as it goes and before allocating (a budget; a *LimitError
//     names the path), the nesting of converted values (Limits.MaxDepth) and the call
//     depth (Limits.MaxCallStackSize). A copy into Go or JSON is a tree, so a shared
//     reference counts each time it is copied; the membrane copies an array reached twice
//     in one crossing once, so a DAG crosses as a DAG. Measured cost of an idle mount
//     with one listener: about 27 KiB of heap (docs/PERFORMANCE.md).
//   - Compiling mount code cannot be interrupted and runs before any time bound, so
//     Compile measures the code first with a small lexer: nesting deeper than
//     Limits.MaxNesting (brackets, template substitutions, operator, prefix, call and
//     else-if chains) or nesting work past Limits.MaxNestingWork is a *SyntaxError. A
//     realm's eval and Function constructors (Function, AsyncFunction, GeneratorFunction)
//     measure text built at run time the same way, and its JSON.parse refuses text nested
//     deeper than MaxNesting: each throws a SyntaxError mount code can catch.
//   - A realm's global object is not goja's own: the engine's globals (Object, JSON,
//     eval, …) become its own properties on their first read, as they were, so a mount
//     that never names eval or JSON does not pay for guarding them. Until then such a name
//     is missing from Object.getOwnPropertyNames(globalThis), a strict-mode assignment to
//     it is a ReferenceError (as for console), a var of that name declared by text handed
//     to eval shadows it, and replacing the global object's prototype hides it;
//     Object.prototype.toString.call(globalThis) is "[object Object]".
//   - An interrupt only takes effect between JavaScript instructions: a long native call
//     (a huge sort, a pathological regular expression) runs to its end first.
//   - An interrupted entry unwinds every JavaScript frame of its realm down to its
//     outermost entry, so calls that nested inside it (from any goroutine) fail with it,
//     and goja drops the realm's queued promise jobs: promises awaiting them never settle.
//   - Time bounds are enforced by one watchdog per engine to within a sixteenth of the
//     smallest bound (between 1 ms and 10 ms).
//   - A sync Go method must not synchronously await JavaScript of the realm that called it
//     (it would wait for itself until CallTimeout): a parallel, serial, bail or waterfall
//     event it emits to that realm's async listener does so; make such a method
//     context-taking. Emit-mode deliveries never wait for a listener's promise, from Go or
//     from inside the realm; a timer callback delivered while its realm is busy does not
//     either.
//   - One lock serves all realms of a session: a mount that runs for its whole CallTimeout
//     delays every other mount of its session by as much (another session's not at all).
//     Strikes and shares (above) bound how often: an emit-mode listener is struck too,
//     though nobody waits for its promise, so its pending work cannot pile up.
//   - Per-mount budgets cap what one mount holds or produces, whatever each entry does:
//     timers (Limits.MaxTimers, pending ctx.sleep included), listeners (MaxListeners),
//     tools (MaxTools) and services (MaxServices) alive at once throw a TypeError in the
//     mount past their limit; console output is cut per line (MaxLogLine) and dropped
//     after one note past MaxLogBytes; unhandled rejections are reported up to
//     MaxRejectionReports, then counted and summarized. A mount's effect disposers share one teardown
//     bound (Limits.Teardown, default 2×CallTimeout): the ones left when it is spent are
//     abandoned and reported (*AbandonedError), and the kit still removes everything else
//     the mount registered.
//   - ctx.tools.register refuses a parameters schema that validation cannot walk with
//     bounded work (no $ref cycle that stays on one value, at most 256 schemas per
//     value); the arguments of a tool with a recursive schema may nest at
//     most 64 levels. A tool description is capped at Limits.MaxBytes.
package sandbox

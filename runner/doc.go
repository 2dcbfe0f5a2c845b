// Package runner is the dynamic-plugin runner: the durable path a model uses to
// build something a person keeps. A Plugin ("clock-1", owned by the session that defined
// it) holds immutable Packages ("pkg-N": name, purpose, an optional host half and an
// optional client half); a run starts one Package; stop ends it and keeps the definition;
// undefine removes it all. The contract — the seven tools, the life cycle of a Plugin and
// a run, approvals and grants, and the page protocol with every field — is
// docs/dynamic-plugins.md in this module.
//
// The first calls a runtime author makes:
//
//	r, err := runner.New(root, &runner.Options{Facade: cordisapi.Facade})
//	defer r.Dispose(ctx)
//	ctx = kit.WithSession(ctx, sessionID) // every model-facing verb reads the session
//	d, err := r.Define(ctx, decl.DefineInput{…})
//	out, err := r.Run(ctx, decl.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: decl.ModeRun})
//
// # Registry and Store
//
// The definition registry sits behind a Store (NewMemoryStore by default): Plugins,
// Packages, the version pointers, grants, the latest attempt and the id counters. Each
// atomic change is one Store call — Define (Plugin + Package + counters), Update (one
// Change: an attempt, pointer moves, grants), Remove, Mint — so a durable Store makes
// each one transaction. Live runs, handler tables and pending requests stay in the
// Runner: they cannot outlive the process. Ids are minted by counters that never go back.
//
// runner/sqlstore is the durable Store (one SQLite file); runner/storetest is the
// conformance suite every Store passes. After a restart, New records the runs and
// requests the previous process lost and tells their sessions (kept ModelMessages);
// with Options.RestartAtBoot it runs again the Plugins that were running
// (Plugin.Running), and BootRestart says what it did. A Plugin with a client half (or
// one no grant covers, under ApproveHostHalves) comes back as a run request, announced
// inside New, before a panel or any UI of the runtime's could listen: PendingRequests
// lists it with its ticket (for a UI of the runtime's own, or one that starts later),
// and the panel, whenever it is created, offers it to every page that connects.
// Plugin.Restored marks what a durable Store read back; cordis_inspect_self shows both
// to the model (restored, bootRestart). A Plugin stays with the session name that
// defined it, so a runtime must name each client's session the same way on every start
// (the sqlstore package doc lists what else must stay stable).
//
// # Runs
//
// A host half runs through a HostStarter. SandboxHost is the real one: a run is a sandbox
// mount (compile, evaluate, plugin shape, a child fiber of the runner's "cordis-runs"
// group, settle or roll back), every entry bounded by the sandbox's Timeouts. The fiber
// belongs to the Plugin's session (HostSpec.Session; the kit package doc, "Sessions"): the
// half hears only its session's scoped events and the awaited emits made for that
// session, and the services and tools it registers are its session's alone, so no half
// can read, veto or fail another session's tool calls or inject another session's
// services. cordis_inspect_query's services and tools answer likewise. Starts are
// keyed by attempt: one per Plugin at a time; the same attempt attaches, another is
// refused (transition-in-flight). Stop and undefine cancel a start in flight and wait for
// it, so once they return nothing of the Plugin runs. A restart (Run of the running
// Package) or an update (Run of another Package, mode update) starts the new half beside
// the working run and swaps only once it started, so a declined or failed one keeps the
// working run, says so, and leaves currentPackageId alone. When the working run provides
// a service, or the new half clashes with it on a tool name, the working run is retracted
// before the new half starts (a clashing half is evaluated twice); a new half that then
// fails says that nothing runs and how to roll back.
//
// A host-only Package runs inside Run. A Package with a client half (and, with
// Options.ApproveHostHalves, any Package not granted) becomes a run request
// ("approval-N") announced by RequestRun, answered by a page through the page verbs.
//
// # Pages, tokens and capabilities
//
// The page verbs (docs/dynamic-plugins.md, "Verbs") are Go methods whose argument structs
// carry the wire's names (RunHostHalf, GetClientCode, ResolveRequestRun, SettleUserRun,
// StopFromPanel, UndefineFromPanel, RevokeGrant, ReviewPackage, InvokeFromPanel,
// ReportRenderFailure, ReportClientGuardFailure, InventoryPage), ready for the panel to
// serve over HTTP. What a page sends and gets back, the refusal reasons it branches on and
// the secrets that authorise it are the page protocol, package runner/page (the runner's
// Reason, Error and Accepted are aliases of its own); the state machine that answers is
// here. Ids are predictable, so three secrets authorise a page instead: a request's
// ticket (in its RequestRun event, and listed by PendingRequests for the runtime's own Go
// code) starts or declines it; the token RunHostHalf returns to the page that started a
// run settles it (an attached page's answer never wins); the run capability (from
// RunHostHalf or GetClientCode; RunCapability for a page the runtime serves itself) binds
// InvokeFromPanel and reports to the run. Go code of the runtime is
// trusted and calls a run's handlers with Invoke and InvokeParams, no capability needed;
// a session on its ctx scopes it to that session's Plugins.
//
// # Deadlines and grants
//
// Every wait has a deadline: a request waits Options.ApprovalTimeout for a person (or
// ClientTimeout when it needs no approval), and the page that started a run has
// ClientTimeout to report its client half. An expired request is retracted and reported
// (OutcomeExpired, decl.RunExpired) to the model. Grants are per Package or for future
// versions and can be revoked (RevokeGrant); a live run keeps running. ReviewPackage
// gives a person approving a Package its source and the version they last let run (the
// newest other Package a grant names or that is current), to show what changed.
//
// Options.Clock schedules these deadlines (nil: real time). A test drives them with a
// ManualClock instead of waiting them out: Advance past ApprovalTimeout, and when it
// returns the request has expired, its resolution was announced and the model told.
// InspectQueryTimeout and StopTimeout run on real time.
//
// # Caps
//
// A runtime that serves many sessions (mcp -http) gives each the same bounded room, so
// one session at a cap never blocks another. Each cap is an Options field (zero means
// the default) and a refusal that says what happened and what to do, for the model that
// reads it:
//
//	cap (Options field)           default  counts                             past it
//	MaxPluginsPerSession          64       a session's Plugins                a define of a new Plugin: ReasonLimit
//	MaxPackagesPerSession         256      a session's Packages, all Plugins  any define: ReasonLimit
//	MaxPendingRequestsPerSession  16       a session's waiting run requests   a cordis_run that would ask: ReasonLimit
//	MaxHandlersPerRun             256      one run's harness.handle methods   a TypeError in the half
//	MaxInventoryBytes             1 MiB    the rows of one InventoryPage      rows made Compact or left out, counted
//
// Packages are capped per session, not per Plugin: what a session costs (the Store, the
// inventory) grows with its Packages wherever they sit, and a model that fixes one Plugin
// again and again should not meet a smaller wall while it holds few others. The way under
// is cordis_undefine (a Package cannot be removed alone). The Store counts what the session
// holds as it records the define (Store.Define, Definition.Admit), so concurrent defines
// cannot overshoot — on a Store several processes share (runner/pgstore), not even from
// two processes — and a refused define records nothing and consumes no id.
// MaxPendingRequestsPerSession counts the requests waiting in this process. Plugins a durable Store restored
// past a cap lowered since all stay, run and take new Packages while the Package cap
// allows: only new definitions are refused until undefines bring the session under.
//
// Only a model's run requests count: a person's direct run from the panel is never
// refused. With RestartAtBoot, a session's Plugins past its request cap are not asked
// again; BootRestart and the session's message say why. A handler method counts once
// however often the half registers it again after its disposer, so the table never holds
// more than the cap, whatever a half registers and disposes. The cap applies to the
// sandbox host New builds; SandboxHost.SetMaxHandlersPerRun sets it on one of your own.
//
// InventoryPage answers a page for one session, or for every session (an operator's
// view; the zero InventoryScope lists nothing). Its rows' JSON stays within MaxInventoryBytes, shared fairly: every session's
// first row claims room before any session's second (within a session, Plugins with
// something in flight first, then the newest), so one session's many Plugins cannot crowd
// out another's few. A row over 1/64 of the bound is made Compact (only the Packages its
// pointers and latest run name; long texts cut), and left out if it still does not fit.
// Plugins, Omitted and Truncated say what the answer leaves out; a page shows them and
// must not take a Plugin missing from a truncated answer for removed. Inventory is the
// whole listing, unbounded, for Go code.
//
// # Events and messages
//
// RequestRun, RequestRunResolved (with an Outcome that says what happened), DynamicPackage,
// DynamicRetract, and the inspect registry's Query and QueryResolved (runner/inspect), are
// kit events for Go code and the panel; ToolCall announces each call of cordis_define,
// cordis_run, cordis_stop and cordis_undefine when it starts and when it answers (the
// panel's activity list), while something listens. ModelMessage carries steer and inject messages to the owning session's model
// while an agent loop in the process is connected for it (Connect); otherwise they are
// kept (Messages, at most Options.MaxQueuedMessages, each text at most MaxMessageTextBytes)
// until it connects or an MCP server takes them into the session's next tool result
// (TakeMessages; WatchMessages sees each new one without taking it).
//
// # Inspect providers, references and the prompt
//
// The inspect registry is its own package, runner/inspect; New makes the process's one
// and Inspect returns it, and cordis_inspect_list and cordis_inspect_query (InspectList,
// InspectQuery) read it. The first-party host providers Service, Event, Builtin and Tool
// are registered once, by New, over Options.Catalog merged with the core tier, with
// referencedTypes filled from the signatures; Inspect().Register adds more. A page gets
// an id from Inspect().ConnectPage, valid while the context the panel passes lives, and
// publishes its client providers with SyncManifest: each page's manifest is its own and
// leaves with the page. A client query goes to the pages that publish its method (the
// inspect.Query event) and settles on the first valid ResolveQuery answer, on a failure
// from every page asked, or after Options.InspectQueryTimeout, which the model is told.
//
// FindReferences finds @pluginId mentions in user text; ReferenceBlocks renders the
// context message for each. PromptSection is the text a runtime adds to its system prompt.
//
// # The seven tools
//
// New registers the model's tools (declared in tooldecl/dynamic, schemas and docs generated in
// the core tier) as effects of its child plugin "cordis-runner/tools": cordis_inspect_list,
// cordis_inspect_query, cordis_inspect_self, cordis_define, cordis_run, cordis_stop and
// cordis_undefine (Tools returns them for a runtime that serves them another way). A call
// acts for the session on its ctx — kit.WithSession, or invoke.Invoker.InvokeSession and
// Server, where each MCP client session is its own — and every tool but
// cordis_inspect_list refuses a call without one. Arguments are decoded strictly (an
// unknown field is a teaching error) and checked in the order docs/dynamic-plugins.md
// gives for each; cordis_run has one answer shape whatever the halves. They are control
// tools: a runtime's gate passes its ctx through GateContext (and the toolset's), so no
// host half's listener stands between the model and them. TakeMessages and WatchMessages make
// the Runner the mcpkit.MessageSource that delivers each session's messages in its MCP
// client's tool results.
//
// # Harness
//
// The host half's harness is native: a read-only global installed through
// sandbox.RunOptions before the body runs, built and frozen on the body's first read of
// it (a half that never names harness pays nothing for it). harness.defineTool checks a tool definition as ctx.tools.register does
// (sandbox.Realm.CheckTool) and returns it stamped; harness.registerTool hands only such a
// definition to ctx.tools.register, so a host half's tool is an effect of its run's fiber
// and goes with the run.
package runner

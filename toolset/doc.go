// Package toolset is the mount manager behind the three model-facing cordis tools:
// cordis_inspect reads the live runtime, cordis_mount evaluates model-written JavaScript
// and mounts the plugin it returns, cordis_unmount removes one again.
//
// The first calls a runtime author makes:
//
//	ts, err := toolset.New(root, &toolset.Options{Catalog: cordisapi.Catalog, Facade: cordisapi.Facade})
//	defer ts.Dispose(ctx)
//	tools, _ := kit.ToolsService.Get(root) // the three tools are registered there
//
// [Options] passes Timeouts, Limits and OnError through to the sandbox ([sandbox.Options]);
// [New] refuses what [sandbox.Options.Validate] refuses, with its error. OnError also
// receives what fails in the toolset's own background: a mount's apply after cordis_mount
// returned, and the mounts' cleanup when the toolset unloads.
//
// # Mounts
//
// Every mount is a child fiber of one "cordis-dynamic" group fiber, tracked under an id
// "dyn-N" minted per toolset (never reused, also not after a failed mount). A mount whose
// injected services are missing succeeds as pending and activates when they appear. A
// mount that fails in any way — syntax, a throw, a timeout, a bad shape, a name collision,
// a failing apply — leaves nothing registered and nothing tracked. Mounts and unmounts of
// one toolset are serialized, so two unmounts of one id cannot both succeed.
//
// # Sessions
//
// A throw-away mount belongs to the session of the cordis_mount call that made it
// (kit.SessionFrom on the call's ctx): it runs in a fiber of that session, so its
// listeners hear only that session's scoped emits (and the awaited emits made for it),
// and the services and tools it registers are that session's alone (the kit package doc,
// "Sessions"). cordis_inspect shows a caller the runtime's own plugins, services, tools and
// mounts and those of its session; cordis_unmount of another session's id answers as for
// an id that does not exist. A call without a session (an agent loop that serves one
// person) mounts a plugin of the runtime's own, which every session shares, and sees
// everything. Options.SharedServices lists the service keys a mount provides to every
// session (kit.Plugin.Shares); its other services stay its session's. Ids are minted per toolset, so a session can tell from the gaps that others
// mount too, and nothing more.
//
// A session's mounts run in its own engine of the sandbox (sandbox.RunOptions.Session;
// the sandbox package doc, "Engines per session"), and its cordis_mount and cordis_unmount
// calls are serialized with each other only: no session's JavaScript, nor a mount in
// progress, waits for another session's.
//
// # Control tools
//
// The three tools, and the dynamic-plugin runner's seven, are the model's control tools
// (tooldecl.ControlTools): its only way to see and undo what dynamic code did. A runtime that
// gates every tool call through an awaited event (a tools/pre-execute waterfall) passes
// its ctx through GateContext first: for a control tool the emit then passes over every listener a mount registered, so no mount can veto,
// rewrite, stall or even see a cordis_* call, while the runtime's own listeners still
// apply. Calls of other tools, including tools mounts registered, reach mount listeners.
//
// # Reports
//
// cordis_inspect answers with "## <section>" blocks in a fixed order: services, plugins,
// tools, Temporary Plugins, api and events. The api section intersects the generated
// catalog with the live service store, and marks abstract seams: an interface service
// nobody provides is listed with its methods and how a mount provides it. The events
// section lists the catalogued events. With a name, both add the full docs and the shapes
// of the types the signatures use, enum values with their docs.
//
// A runtime registers its own Go tools with the schemas the generator derived through
// package tooldecl (tooldecl.Bind), as the toolset registers its three.
package toolset

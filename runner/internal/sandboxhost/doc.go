// Package sandboxhost runs the host halves of dynamic plugins in the sandbox: a run is a
// mount. It is the runner's room for the host half's sandbox — the `harness` a half is
// given, the handler table harness.handle fills, the tools harness.defineTool and
// harness.registerTool make, and the define-time checks of a half's code — and the runner
// reaches it through a small API:
//
//	h := sandboxhost.New(opts, maxHandlers) // a sandbox of its own
//	err := h.Check("code.host", code)       // at define time: parse, refuse what cannot run
//	run, err := h.Start(ctx, parent, sandboxhost.Spec{PluginID: "clock-1", Session: s, Code: code})
//	out, err := run.Invoke(ctx, "refresh", args) // a handler, JSON in and out
//	err = run.Stop(ctx)
//
// runner.SandboxHost is its face for a runtime author (runner.Options.Host nil builds one);
// nothing outside package runner imports it, as net/http's internal packages serve net/http
// alone.
//
// # The harness
//
// A half's `harness` is an extra global of its realm (sandbox.RunOptions.Globals): built
// on the half's first read of the name, frozen, and bound to this run's handler table and
// to a private symbol that marks the tools its defineTool made. Its natives are made with
// sandbox.Realm.Func and sandbox/bind, like any binding: they run with the realm's lock
// held, and nothing here holds a goja runtime.
//
// # Handlers
//
// The handler table belongs to the run, not to a fiber: handlers stay callable while the
// fiber is parked and go only when the run stops. JavaScript adds and removes entries with
// the realm's lock held; Go reads them (Run.Handlers, Run.Invoke) under the table's own
// mutex without entering JavaScript. A run holds at most the Host's bound at once
// (SetMaxHandlers); a registration past it throws a TypeError that says so.
package sandboxhost

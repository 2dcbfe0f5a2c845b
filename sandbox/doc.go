// Package sandbox runs model-written JavaScript plugins in goja realms, one per mount, and
// is the only way from that JavaScript into Go: through the generated façade.
//
// The first calls a user (the toolset) makes:
//
//	loop := sandbox.New(&sandbox.Options{Facade: generated.Facade})
//	defer loop.Close(ctx)
//	m, err := loop.Evaluate(ctx, "dyn-1", code) // compile, run the body, validate the plugin
//	fiber := group.Plugin(m.Plugin())           // apply runs the JS apply through a fresh ctx façade
//	…
//	fiber.Dispose(ctx)
//	m.Close()
//
// # The loop
//
// All realms of a Loop share one lock: at most one goroutine runs JavaScript at a time, and
// any goroutine may enter (there is no loop goroutine, so delivering a Go event to a JS
// listener costs a lock, not a channel handoff). A native function that calls into Go
// releases the lock around the call (Realm.Sync), so a Go method that emits back into
// JavaScript — even into the calling realm — re-enters inline. goja drains a realm's
// promise jobs when its outermost call returns. Context-taking Go methods run on goroutines
// the loop owns (Realm.Async) and settle their promise by re-entering under the lock.
//
// # Time bounds
//
// Every entry into JavaScript is bounded (Timeouts): VM for the synchronous evaluation of
// mount code, Mount for the body's promise and apply, Call for every later entry — a
// listener, a tool's execute, a timer callback, a cross-mount call. An entry that exceeds
// its bound is interrupted (goja's Runtime.Interrupt), fails with an error for which
// errors.Is(err, context.DeadlineExceeded) holds, and the realm and loop keep serving.
// Unbounded recursion ends the entry with a *goja.StackOverflowError (Limits).
//
// # Generated bindings
//
// Generated façade code (facade_gen.go) builds JS objects for Go services with Realm.Func,
// converts arguments with ArgString, ArgInt, … (a wrong type throws a TypeError naming the
// method and parameter), calls Go with Realm.Sync or Realm.Async, and delivers Go events to
// JS listeners with Realm.Deliver. Go values cross only as plain data (FromAny, FromJSON)
// or as those whitelisted bindings: never as reflected Go objects.
package sandbox

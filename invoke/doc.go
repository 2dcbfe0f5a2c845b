// Package invoke hands a kit runtime's tools to any agent loop: the neutral Tools +
// Invoke pair. It does not import the MCP SDK; package mcpkit serves the same tools over
// MCP and calls them through an Invoker.
//
// The first calls a runtime author makes:
//
//	inv, err := invoke.NewInvoker(root)            // a plugin under root; Close detaches it
//	for _, t := range inv.Tools() { … }            // name, description, JSON Schemas
//	out, err := inv.Invoke(ctx, name, argsJSON)    // validated, then run
//
// [Invoker.Tools] lists every tool registered in the kit's registry (kit.ToolsService) at
// the moment of the call: the runtime's own tools, the cordis tools, and every tool a
// mounted plugin has registered since. [Invoker.Invoke] validates the arguments against the
// tool's InputSchema (JSON Schema 2020-12, via github.com/google/jsonschema-go) and then
// runs the tool through the registry, so the call counts as a running callback of the
// plugin that owns the tool. Invalid arguments never reach the tool: Invoke returns an
// *[ArgumentError] naming the offending field ("files[].name") and what is wrong with it.
// Compiled schemas are cached per tool and dropped on every kit.ToolsChange of that tool.
//
// An attached Invoker adds a check to the registry (kit.Tools.AddCheck): a tool registered
// after it whose input or output schema is not a usable JSON Schema, or one that validation
// could not walk with bounded work (a $ref cycle that stays on one value, more than 256
// schemas applied to one value), is refused, and the plugin registering it gets the error
// naming the offending part of the schema. A tool registered earlier with such a schema is
// listed, and its calls are refused with that error.
//
// # Sessions
//
// Session-scoped tools (the dynamic-plugin runner's seven: Plugins belong to the session
// that defined them) read the calling session from the call's context (kit.SessionFrom).
// [Invoker.InvokeSession] names it for an agent loop.
//
// # Lifetime
//
// An Invoker is the kit plugin "mcpkit/invoker" (its name from before this package was
// split out of mcpkit) that injects the "tools" service: its listener is an effect of its
// own fiber. Close disposes that fiber, which detaches it from the runtime; disposing an
// ancestor fiber does the same. If the tool registry goes away it returns to pending and
// re-attaches when it comes back.
package invoke

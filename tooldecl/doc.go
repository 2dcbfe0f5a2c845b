// Package tooldecl is the floor the model-facing tools stand on: what every tool
// declared in Go (kit.NewTool) needs to become a registry entry, and what the runtime
// knows about the cordis control tools, described once and read by package toolset,
// package runner and the assembly point alike. Neither toolset nor runner imports the
// other; both import this.
//
// A tool declared in Go and catalogued by gen-cordis-api becomes a registry entry in one
// call, with the catalog's doc comment as its description and the JSON Schemas derived
// from its Go types:
//
//	// Summarize shortens a text to a few sentences.
//	var Summarize = kit.NewTool[SummarizeInput, SummarizeOutput]("summarize")
//
//	tool, err := tooldecl.Bind(cordisapi.Catalog, agent.Summarize, summarize)
//	if err != nil { … } // a tool the catalog lacks, or a stale catalog: run go generate
//	_, err = tools.Register(c, tool)
//
// A runtime that gates every tool call through an awaited event of its own (a
// tools/pre-execute waterfall) emits it with the ctx Shield returns, so that no listener
// dynamic code registered stands between the model and a control tool:
//
//	ctx = tooldecl.Shield(ctx, tool, ts.Fiber(), r.Fiber()) // the fibers that hold dynamic code
//	d, err := PreExecute.Emit(ctx, root, PreExecuteEvent{Tool: tool, …}, allow)
//
// (cordiskit.Runtime.GateContext, toolset.Toolset.GateContext and
// runner.Runner.GateContext call Shield with their own fibers.)
//
// # Binding
//
// Bind decodes arguments as [kit.ToolDecl.Bind] does, strictly: a field the input type
// does not have, a value of another type or data after the arguments' object is an error
// that tells the model to call again with the fields the schema lists, and the tool's
// function does not run. Empty or null arguments are the input type's zero value.
// Schema alone returns the description and schemas, for a caller that binds another way.
//
// # Control tools
//
// The control tools are the model's only way to see and undo what dynamic code did: the
// mount manager's cordis_inspect, cordis_mount and cordis_unmount (declared in
// tooldecl/cordis) and the dynamic-plugin runner's cordis_inspect_list,
// cordis_inspect_query, cordis_inspect_self, cordis_define, cordis_run, cordis_stop and
// cordis_undefine (declared in tooldecl/dynamic). ControlTools lists them from those
// declarations, IsControl asks about one, and Shield keeps the listeners of dynamic code
// away from their calls. Calls of every other tool, including tools dynamic code
// registered, reach those listeners: seeing and gating them is what a gate is for.
package tooldecl

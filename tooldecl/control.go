package tooldecl

import (
	"context"
	"slices"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/cordis"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// controlNames is the names of the control tools, as their declaring packages list them:
// the mount manager's three, then the runner's seven, in the order each registers them.
// It is the one list; everything that asks whether a tool is a control tool reads it.
var controlNames = slices.Concat(cordis.Names(), dynamic.Names())

// ControlTools returns the names of the control tools: cordis_inspect, cordis_mount and
// cordis_unmount (package toolset registers them), then cordis_inspect_list,
// cordis_inspect_query, cordis_inspect_self, cordis_define, cordis_run, cordis_stop and
// cordis_undefine (package runner registers them). The slice is the caller's.
func ControlTools() []string { return slices.Clone(controlNames) }

// IsControl reports whether tool names one of the control tools.
func IsControl(tool string) bool { return slices.Contains(controlNames, tool) }

// Shield prepares the ctx of a runtime's gate — an awaited event every tool call passes
// (waterfall, serial or parallel), such as tools/pre-execute — for a call of tool. For a
// control tool it returns a ctx whose emits pass over every listener registered under
// owners and the fibers below them (the fibers that hold dynamic code: a toolset's, a
// runner's), so no code there can veto, rewrite, stall or read the call; the runtime's
// own listeners still run. For any other tool, or with no owner, it returns ctx
// unchanged. Nil owners are skipped, so a runtime passes the fibers of what it wired.
//
//	ctx = tooldecl.Shield(ctx, tool, ts.Fiber(), r.Fiber())
//	d, err := PreExecute.Emit(ctx, root, PreExecuteEvent{Tool: tool, …}, allow)
func Shield(ctx context.Context, tool string, owners ...*kit.Fiber) context.Context {
	if !IsControl(tool) {
		return ctx
	}
	if slices.Contains(owners, nil) {
		owners = slices.DeleteFunc(slices.Clone(owners), func(f *kit.Fiber) bool { return f == nil })
	}
	if len(owners) == 0 {
		return ctx
	}
	return kit.WithoutListenersOf(ctx, owners...)
}

package toolset

import (
	"context"
	"slices"

	"github.com/cordiskit/cordiskit/kit"
	runnerdecl "github.com/cordiskit/cordiskit/runner/decl"
	"github.com/cordiskit/cordiskit/toolset/decl"
)

// controlTools are the model's way to see and undo what dynamic code did: the toolset's
// own three, then the dynamic-plugin runner's seven. Nothing a mount wrote may stand
// between the model and them, whichever of the two sets a runtime offers.
var controlTools = []string{
	decl.Inspect.Name(), decl.Mount.Name(), decl.Unmount.Name(),
	runnerdecl.InspectList.Name(), runnerdecl.InspectQuery.Name(), runnerdecl.InspectSelf.Name(),
	runnerdecl.Define.Name(), runnerdecl.Run.Name(), runnerdecl.Stop.Name(), runnerdecl.Undefine.Name(),
}

// ControlTools returns the names of the control tools: the toolset's cordis_inspect,
// cordis_mount and cordis_unmount, then the runner's cordis_inspect_list,
// cordis_inspect_query, cordis_inspect_self, cordis_define, cordis_run, cordis_stop and
// cordis_undefine (package runner registers those seven).
func (t *Toolset) ControlTools() []string { return slices.Clone(controlTools) }

// IsControlTool reports whether tool is one of the control tools.
func (t *Toolset) IsControlTool(tool string) bool { return slices.Contains(controlTools, tool) }

// GateContext prepares the context of a runtime's gate (a waterfall or serial event every
// tool call passes, such as a tools/pre-execute) for a call of tool. For a control tool it
// returns a ctx whose emits pass over every listener the toolset's mounts registered, so
// that no mount can veto, rewrite, stall or read a call of a control tool; the runtime's
// own listeners still run. For any other tool it returns ctx unchanged: mounts seeing and
// gating other tools' calls is the gate's purpose. (The runner's host halves are shielded
// by runner.Runner.GateContext; a runtime with both chains the two.)
//
//	ctx = ts.GateContext(ctx, tool)
//	d, err := PreExecute.Emit(ctx, root, PreExecuteEvent{Tool: tool, …}, allow)
func (t *Toolset) GateContext(ctx context.Context, tool string) context.Context {
	if !t.IsControlTool(tool) {
		return ctx
	}
	// The toolset's fiber holds the mount group whatever activation it is in.
	return kit.WithoutListenersOf(ctx, t.fiber)
}

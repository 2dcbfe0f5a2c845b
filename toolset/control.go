package toolset

import (
	"context"

	"github.com/cordiskit/cordiskit/tooldecl"
)

// GateContext prepares the context of a runtime's gate (a waterfall or serial event every
// tool call passes, such as a tools/pre-execute) for a call of tool: for a control tool
// (tooldecl.IsControl) the emit passes over every listener the toolset's mounts
// registered, so that no mount can veto, rewrite, stall or read the call; the runtime's
// own listeners still run. For any other tool it returns ctx unchanged: mounts seeing and
// gating other tools' calls is the gate's purpose. It is [tooldecl.Shield] with the
// toolset's fiber; a runtime with the dynamic-plugin runner too shields both fibers in one
// call (cordiskit.Runtime.GateContext does).
//
//	ctx = ts.GateContext(ctx, tool)
//	d, err := PreExecute.Emit(ctx, root, PreExecuteEvent{Tool: tool, …}, allow)
func (t *Toolset) GateContext(ctx context.Context, tool string) context.Context {
	// The toolset's fiber holds the mount group whatever activation it is in.
	return tooldecl.Shield(ctx, tool, t.fiber)
}

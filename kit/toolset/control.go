package toolset

import (
	"context"
	"slices"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/kit/toolset/decl"
)

// controlTools are the toolset's own tools: the model's way to see and undo what mounts
// did, so nothing a mount wrote may stand between the model and them.
var controlTools = []string{decl.Inspect.Name(), decl.Mount.Name(), decl.Unmount.Name()}

// ControlTools returns the names of the toolset's control tools: cordis_inspect,
// cordis_mount and cordis_unmount.
func (t *Toolset) ControlTools() []string { return slices.Clone(controlTools) }

// IsControlTool reports whether tool is one of the toolset's control tools.
func (t *Toolset) IsControlTool(tool string) bool { return slices.Contains(controlTools, tool) }

// GateContext prepares the context of a runtime's gate (a waterfall or serial event every
// tool call passes, such as a tools/pre-execute) for a call of tool. For a control tool it
// returns a ctx whose emits pass over every listener the toolset's mounts registered, so
// that no mount can veto, rewrite, stall or read a call of cordis_inspect, cordis_mount or
// cordis_unmount; the runtime's own listeners still run. For any other tool it returns ctx
// unchanged: mounts seeing and gating other tools' calls is the gate's purpose.
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

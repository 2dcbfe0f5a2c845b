package runner

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// announcedToolNames are the tools whose calls ToolCall announces: the four that change
// what a person sees (a define, a run, a stop, a removal).
var announcedToolNames = []string{dynamic.Define.Name(), dynamic.Run.Name(), dynamic.Stop.Name(), dynamic.Undefine.Name()}

// toolCallSeq numbers the announced calls of this process in the order they start.
var toolCallSeq atomic.Int64

// announced returns tools with the calls of cordis_define, cordis_run, cordis_stop and
// cordis_undefine announced as ToolCall events (announce); the others are unchanged.
func (r *Runner) announced(tools []kit.Tool) []kit.Tool {
	for i, t := range tools {
		if t.Execute != nil && slices.Contains(announcedToolNames, t.Name) {
			tools[i] = r.announce(t)
		}
	}
	return tools
}

// announce returns t with each call emitted as ToolCall when it starts and when it
// answers. A call that starts while nobody listens costs one listener check and is not
// announced at all, not even its answer.
func (r *Runner) announce(t kit.Tool) kit.Tool {
	exec, name := t.Execute, t.Name
	t.Execute = func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
		c := r.ctx()
		if !ToolCall.HasListeners(c) {
			return exec(ctx, input)
		}
		session, _ := kit.SessionFrom(ctx)
		ev := ToolCallEvent{Session: session, Tool: name, Seq: toolCallSeq.Add(1), Args: string(input)}
		ToolCall.Emit(c, ev)
		out, err := exec(ctx, input)
		switch {
		case err != nil && ctx.Err() != nil:
			ev.Interrupted = true
		case err != nil:
			ev.Error = err.Error()
		case len(out) == 0:
			ev.Result = json.RawMessage("null") // a success with no value is not a call without an answer
		default:
			ev.Result = out
		}
		ToolCall.Emit(c, ev)
		return out, err
	}
	return t
}

package runner

import (
	"context"
	"strings"

	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The seven model tools are registered by the plugin "cordis-runner/tools", a child of
// the runner's fiber that injects the tools registry: each tool is an effect of it, so
// they go when the runner is disposed (before its runs) and follow the registry if it goes
// away and comes back.
func (r *Runner) startTools(c *kit.Context) error {
	return c.Plugin(&kit.Plugin{Name: "cordis-runner/tools", Inject: []string{kit.ToolsService.Key()}, Apply: func(c *kit.Context) error {
		tools, _ := kit.ToolsService.Get(c)
		for _, t := range r.Tools() {
			if _, err := tools.Register(c, t); err != nil {
				return err
			}
		}
		return nil
	}}).Err()
}

// Tools returns the seven model tools bound to r, with the schemas and descriptions of
// the generated core tier: cordis_inspect_list, cordis_inspect_query, cordis_inspect_self,
// cordis_define, cordis_run, cordis_stop and cordis_undefine. New registers them in the
// runtime's tools registry already; Tools is for a runtime that serves them another way.
// Each call runs for the session on its ctx (kit.WithSession); every tool but
// cordis_inspect_list refuses a call without one. The calls of cordis_define, cordis_run,
// cordis_stop and cordis_undefine are announced as [ToolCall] however they are served.
func (r *Runner) Tools() []kit.Tool {
	return r.announced([]kit.Tool{
		// The inspect providers' tools: their behaviour is the inspect registry's (inspect.go).
		bind(dynamic.InspectList, r.InspectList),
		bind(dynamic.InspectQuery, withSession(dynamic.InspectQuery.Name(), r.InspectQuery)),

		bind(dynamic.InspectSelf, withSession(dynamic.InspectSelf.Name(), r.InspectSelf)),
		bind(dynamic.Define, withSession(dynamic.Define.Name(), r.Define)),
		bind(dynamic.Run, withSession(dynamic.Run.Name(), r.runTool)),
		bind(dynamic.Stop, withSession(dynamic.Stop.Name(), r.stopTool)),
		bind(dynamic.Undefine, withSession(dynamic.Undefine.Name(), r.undefineTool)),
	})
}

// GateContext prepares the ctx of a runtime's gate (a tools/pre-execute waterfall every
// tool call passes) for a call of tool: for a control tool (tooldecl.IsControl) the emit
// passes over every listener the runner's host halves registered, so no Plugin can veto,
// rewrite, stall or read a call that stops or inspects it. Other tools' calls are
// unchanged. It is [tooldecl.Shield] with the runner's fiber; a runtime with the toolset
// too shields both fibers in one call (cordiskit.Runtime.GateContext does).
func (r *Runner) GateContext(ctx context.Context, tool string) context.Context {
	return tooldecl.Shield(ctx, tool, r.fiber)
}

// bind makes a registry entry of one of the seven with tooldecl.Bind: the generated
// schema and description, arguments decoded strictly (an unknown or mistyped field is a
// teaching error, not a silently ignored one). The seven are in the core tier, so an
// error is a stale generated/ package: a programmer error.
func bind[In, Out any](d *kit.ToolDecl[In, Out], fn func(context.Context, In) (Out, error)) kit.Tool {
	t, err := tooldecl.Bind(generated.Catalog, d, fn)
	if err != nil {
		panic(err)
	}
	return t
}

// withSession refuses a call that carries no session before fn runs: the runner's verbs
// act for the calling session, and a tool call without one is a wiring fault of the
// runtime that the model can only report.
func withSession[In, Out any](tool string, fn func(context.Context, In) (Out, error)) func(context.Context, In) (Out, error) {
	return func(ctx context.Context, in In) (Out, error) {
		if _, ok := kit.SessionFrom(ctx); !ok {
			var zero Out
			return zero, refuse(ReasonNoSession, "%s needs an agent-backed session, and this call carries none, so nothing was done: the runtime must put the calling session on each tool call's context (kit.WithSession; mcpkit does it for every MCP client session, Invoker.InvokeSession for an agent loop). Tell the user the Cordis dynamic tools are not wired to a session in this runtime; cordis_inspect_list and the cordis_mount tools still work", tool)
		}
		return fn(ctx, in)
	}
}

// needPluginID refuses a blank pluginId with the exact next step.
func needPluginID(tool, id string) error {
	if strings.TrimSpace(id) == "" {
		return refuse(ReasonInvalid, `%s needs pluginId: the id of one of your Plugins, such as "clock-1" (cordis_inspect_self lists them)`, tool)
	}
	return nil
}

// runTool is cordis_run; its answer has one shape whatever the Package's halves.
func (r *Runner) runTool(ctx context.Context, in dynamic.RunInput) (dynamic.RunOutput, error) {
	if err := needPluginID(dynamic.Run.Name(), in.PluginID); err != nil {
		return dynamic.RunOutput{}, err
	}
	return r.Run(ctx, in)
}

// stopTool is cordis_stop: idempotent, only a Plugin that is not this session's fails.
func (r *Runner) stopTool(ctx context.Context, in dynamic.StopInput) (dynamic.StopOutput, error) {
	if err := needPluginID(dynamic.Stop.Name(), in.PluginID); err != nil {
		return dynamic.StopOutput{}, err
	}
	return r.Stop(ctx, in)
}

// undefineTool is cordis_undefine: not idempotent, the Plugin no longer exists after.
func (r *Runner) undefineTool(ctx context.Context, in dynamic.UndefineInput) (dynamic.UndefineOutput, error) {
	if err := needPluginID(dynamic.Undefine.Name(), in.PluginID); err != nil {
		return dynamic.UndefineOutput{}, err
	}
	return r.Undefine(ctx, in)
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
)

// Options configures a Runtime.
type Options struct {
	// WorkDir is the directory the fs service is rooted in and commands run in. It must
	// exist. Required.
	WorkDir string
	// Logger receives the runtime's reports. Nil means slog.Default().
	Logger *slog.Logger
	// StateDir is where the runtime keeps its own state (the kv store's KVFile). It must
	// not be inside WorkDir, so that no service a plugin can use serves it; it is created
	// when missing. Empty means the kv store is not persisted.
	StateDir string
	// Exec configures the exec service. Nil means defaults.
	Exec *ExecOptions
}

// ErrVetoed is wrapped by the error of a tool call that a tools/pre-execute listener
// vetoed.
var ErrVetoed = errors.New("vetoed by tools/pre-execute")

// A Runtime is the harness's agent runtime: a kit root running the fs, exec, kv and
// kv-persist plugins, plus the calls an agent loop makes — begin a turn, call a tool,
// flush a session. All methods are safe for concurrent use.
type Runtime struct {
	root  *kit.Context
	inv   *invoke.Invoker
	store *Store

	mu    sync.Mutex
	turns map[string]int

	gateCtx atomic.Pointer[GateContext]
}

// A GateContext prepares the ctx of one tools/pre-execute emit for a call of tool. A mount
// manager supplies one (toolset.Toolset.GateContext) so that the listeners its mounts
// wrote never see, veto, rewrite or stall a call of its control tools.
type GateContext func(ctx context.Context, tool string) context.Context

// New boots a runtime rooted in opts.WorkDir. Close it when done.
func New(opts *Options) (*Runtime, error) {
	if opts == nil || opts.WorkDir == "" {
		return nil, errors.New("agent: Options.WorkDir is required: the directory fs is rooted in and commands run in")
	}
	if fi, err := os.Stat(opts.WorkDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("agent: work directory %q is not a directory (%v)", opts.WorkDir, err)
	}
	if err := checkStateDir(opts.StateDir, opts.WorkDir); err != nil {
		return nil, err
	}
	rt := &Runtime{root: kit.New(&kit.Options{Logger: opts.Logger}), store: NewStore(), turns: map[string]int{}}
	plugins := []*kit.Plugin{
		FSPlugin(opts.WorkDir),
		ExecPlugin(opts.WorkDir, opts.Exec),
		KVPlugin(rt.store),
	}
	if opts.StateDir != "" {
		plugins = append(plugins, KVPersistPlugin(opts.StateDir))
	}
	for _, p := range plugins {
		if err := rt.root.Plugin(p).Err(); err != nil {
			return nil, errors.Join(err, rt.root.Fiber().Dispose(context.Background()))
		}
	}
	inv, err := invoke.NewInvoker(rt.root)
	if err != nil {
		return nil, errors.Join(err, rt.root.Fiber().Dispose(context.Background()))
	}
	rt.inv = inv
	return rt, nil
}

// Context returns the runtime's root Context: start plugins on it, get services from it,
// hand it to the toolset or to mcpkit.Serve.
func (rt *Runtime) Context() *kit.Context { return rt.root }

// Store returns the kv store. It is the same store the kv service provides.
func (rt *Runtime) Store() *Store { return rt.store }

// Tools returns the schemas of every registered tool: what to offer the model of a runtime
// that serves one person.
func (rt *Runtime) Tools() []kit.ToolSchema { return rt.inv.Tools() }

// ToolsFor returns the schemas of the tools session's model may call: the runtime's own
// and those its session's plugins registered, never another session's.
func (rt *Runtime) ToolsFor(session string) []kit.ToolSchema { return rt.inv.ToolsFor(session) }

// BeginTurn counts a new turn of session, emits agent/turn-start and returns the turn's
// number (1 for a session's first turn).
func (rt *Runtime) BeginTurn(session, prompt string) int {
	rt.mu.Lock()
	rt.turns[session]++
	turn := rt.turns[session]
	rt.mu.Unlock()
	TurnStart.Emit(rt.root, TurnStartEvent{Session: kit.Session(session), Turn: turn, Prompt: prompt})
	return turn
}

// CallTool runs a model's tool call for session: tools/pre-execute first (which may
// rewrite or veto it), then the tool, with its arguments checked against its input
// schema and session on its context (session-scoped tools, such as the dynamic-plugin
// runner's, act for it). Errors are written for the model; see
// invoke.Invoker.InvokeSession.
func (rt *Runtime) CallTool(ctx context.Context, session, tool string, input json.RawMessage) (json.RawMessage, error) {
	input, err := rt.Gate(ctx, session, tool, input)
	if err != nil {
		return nil, err
	}
	return rt.inv.InvokeSession(ctx, session, tool, input)
}

// Gate runs tools/pre-execute for a call and returns the arguments to call the tool with.
// A veto is an error wrapping ErrVetoed. Use it as mcpkit.Options.Before to apply the
// same policy to calls that arrive over MCP. The emit runs with the ctx the GateContext
// installed by SetGateContext returns for tool.
func (rt *Runtime) Gate(ctx context.Context, session, tool string, input json.RawMessage) (json.RawMessage, error) {
	in := string(input)
	if in == "" || in == "null" {
		in = "{}"
	}
	if gc := rt.gateCtx.Load(); gc != nil {
		ctx = (*gc)(ctx, tool)
	}
	d, err := PreExecute.Emit(ctx, rt.root, PreExecuteEvent{Session: kit.Session(session), Tool: tool, Input: in},
		func() (Decision, error) { return Decision{Allow: true}, nil })
	if err != nil {
		return nil, fmt.Errorf("tool %q was not run: tools/pre-execute failed: %w", tool, err)
	}
	if !d.Allow {
		reason := d.Reason
		if reason == "" {
			reason = "a tools/pre-execute listener refused it without a reason"
		}
		return nil, fmt.Errorf("tool %q was not run: %s: %w", tool, reason, ErrVetoed)
	}
	if d.Input != "" {
		in = d.Input
	}
	return json.RawMessage(in), nil
}

// SetGateContext installs gc on the gate: every later tools/pre-execute emit runs with
// the ctx gc returns for the call's tool. A runtime that mounts model-written plugins
// installs its toolset's GateContext before it serves calls, so that mounts cannot lock
// the model out of cordis_inspect, cordis_mount and cordis_unmount. nil removes it.
func (rt *Runtime) SetGateContext(gc GateContext) {
	if gc == nil {
		rt.gateCtx.Store(nil)
		return
	}
	rt.gateCtx.Store(&gc)
}

// Flush emits session/flush for session and waits for every listener (the kv store is
// saved then). reason is passed on, e.g. "end of turn".
func (rt *Runtime) Flush(ctx context.Context, session, reason string) error {
	return SessionFlush.Emit(ctx, rt.root, SessionFlushEvent{Session: kit.Session(session), Reason: reason})
}

// Close flushes with reason "shutdown" and an empty session, then disposes the runtime:
// every plugin, mounted ones included, is torn down, and Close returns at quiescence.
func (rt *Runtime) Close(ctx context.Context) error {
	err := rt.Flush(ctx, "", "shutdown")
	return errors.Join(err, rt.root.Fiber().Dispose(ctx))
}

package invoke

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cordiskit/cordiskit/internal/schema"
	"github.com/cordiskit/cordiskit/kit"
)

// ErrDetached reports a call through an Invoker or Server that is not attached to a tool
// registry: it was closed, or the runtime's "tools" service is gone.
var ErrDetached = errors.New("invoke: not attached to a tool registry")

// An Invoker lists and calls the tools of one kit runtime with validated arguments: hand
// Tools to any agent loop and route the model's tool calls to Invoke. The zero Invoker is
// detached until [Invoker.Attach] binds it. All methods are safe for concurrent use.
type Invoker struct {
	fiber *kit.Fiber
	tools atomic.Pointer[kit.Tools]

	mu      sync.Mutex
	epoch   uint64 // bumped by every invalidation; a resolve that raced one is not cached
	schemas map[string]*inputSchema
	fresh   map[string]*schema.Schema // compiled by checkSchemas, by text, until first used
}

// NewInvoker starts an Invoker as plugin "mcpkit/invoker", a child of c's fiber that
// injects the "tools" service. It fails only if the plugin cannot start (c's fiber is not
// active). Close detaches it.
func NewInvoker(c *kit.Context) (*Invoker, error) {
	inv := new(Invoker)
	// The plugin keeps the name it had when the Invoker lived in package mcpkit: runtimes
	// and their tests find it by that name in the plugin tree.
	f := c.Plugin(&kit.Plugin{Name: "mcpkit/invoker", Inject: []string{kit.ToolsService.Key()}, Apply: inv.Attach})
	if err := f.Err(); err != nil {
		return nil, err
	}
	inv.fiber = f
	return inv, nil
}

// Attach binds inv to the tool registry of c's runtime for the life of c's fiber. It is
// the Apply of NewInvoker's plugin; a plugin that calls the tools on its own behalf (the
// MCP server in package mcpkit does) calls it from its own Apply, on an Invoker it made
// with new(Invoker), so that the calls count as its own. c's plugin must inject
// kit.ToolsService; Fiber and Close stay those of NewInvoker's plugin (nil and a no-op
// for an Invoker made otherwise).
func (inv *Invoker) Attach(c *kit.Context) error {
	tools, ok := kit.ToolsService.Get(c)
	if !ok {
		return fmt.Errorf("invoke: the %q service is not available: %w", kit.ToolsService.Key(), ErrDetached)
	}
	if _, err := kit.ToolsChange.On(c, func(e kit.ToolsChangeEvent) { inv.invalidate(e.Tool) }); err != nil {
		return err
	}
	if err := tools.AddCheck(c, inv.checkSchemas); err != nil {
		return err
	}
	inv.tools.Store(tools)
	return c.Effect(func() error {
		inv.tools.Store(nil)
		inv.mu.Lock()
		clear(inv.schemas)
		clear(inv.fresh)
		inv.epoch++
		inv.mu.Unlock()
		return nil
	})
}

// Fiber returns the fiber the Invoker runs in.
func (inv *Invoker) Fiber() *kit.Fiber { return inv.fiber }

// Close detaches the Invoker from the runtime by disposing its fiber; later calls report
// ErrDetached. ctx bounds the wait for running callbacks, as in kit.Fiber.Dispose.
func (inv *Invoker) Close(ctx context.Context) error {
	if inv.fiber == nil {
		return nil
	}
	return inv.fiber.Dispose(ctx)
}

// Registry returns the tool registry inv is attached to, or nil when it is detached.
func (inv *Invoker) Registry() *kit.Tools { return inv.tools.Load() }

// Tools returns the schemas of every registered tool, in registration order: what to
// offer a model that is the runtime's only user. It returns nil when the Invoker is
// detached. A runtime serving many sessions offers each ToolsFor its session.
func (inv *Invoker) Tools() []kit.ToolSchema {
	tools := inv.tools.Load()
	if tools == nil {
		return nil
	}
	return tools.Schemas()
}

// ToolsFor returns the schemas of the tools session may call: the runtime's own and those
// its session's plugins registered, never another session's (the kit package doc,
// "Sessions"). It returns nil when the Invoker is detached.
func (inv *Invoker) ToolsFor(session string) []kit.ToolSchema {
	tools := inv.tools.Load()
	if tools == nil {
		return nil
	}
	return tools.Session(session).Schemas()
}

// Invoke validates args against the named tool's InputSchema and runs the tool. Empty or
// null args mean {}; the arguments reach the tool as sent (schema defaults are not filled
// in). It returns the tool's JSON result, or:
//
//   - an *ArgumentError (errors.Is ErrInvalidArguments) when args do not match the schema;
//   - an error wrapping kit.ErrUnknownTool, listing the registered tools, for an unknown name;
//   - ErrDetached when the Invoker is not attached;
//   - otherwise the tool's own error.
//
// Every message is written for the model that made the call: it says what to do next.
func (inv *Invoker) Invoke(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	tools := inv.tools.Load()
	if tools == nil {
		return nil, ErrDetached
	}
	if session, ok := kit.SessionFrom(ctx); ok {
		// A call for a session sees the runtime's own tools and the session's: another
		// session's tool is unknown to it, down to its schema and its name in the error.
		tools = tools.Session(session)
	}
	in, err := inv.inputSchema(tools, name)
	if err != nil {
		return nil, err
	}
	args, err = in.check(name, args)
	if err != nil {
		return nil, err
	}
	return tools.Call(ctx, name, args)
}

// inputSchema returns the named tool's resolved input schema, from the cache when it can.
func (inv *Invoker) inputSchema(tools *kit.Tools, name string) (*inputSchema, error) {
	inv.mu.Lock()
	in, ok := inv.schemas[name]
	epoch := inv.epoch
	inv.mu.Unlock()
	if ok && tools.Has(name) {
		return in, nil
	}
	schema, ok := tools.Get(name)
	if !ok {
		return nil, unknownTool(tools, name)
	}
	in = inv.resolveInput(schema.InputSchema)
	inv.mu.Lock()
	if inv.epoch == epoch { // no change since we read the registry: safe to cache
		if inv.schemas == nil {
			inv.schemas = map[string]*inputSchema{}
		}
		inv.schemas[name] = in
	}
	inv.mu.Unlock()
	return in, nil
}

// invalidate drops the cached schema of a tool that was registered or removed.
func (inv *Invoker) invalidate(name string) {
	inv.mu.Lock()
	delete(inv.schemas, name)
	inv.epoch++
	inv.mu.Unlock()
}

// InvokeSession is Invoke for a call made on behalf of session: the tool runs with
// kit.WithSession(ctx, session), so session-scoped tools (the dynamic-plugin runner's)
// act for it. An agent loop passes the id of the conversation the model call belongs to;
// an empty session carries none, and such tools refuse the call.
func (inv *Invoker) InvokeSession(ctx context.Context, session, name string, args json.RawMessage) (json.RawMessage, error) {
	return inv.Invoke(kit.WithSession(ctx, session), name, args)
}

func unknownTool(tools *kit.Tools, name string) error {
	var names []string
	for _, s := range tools.Schemas() {
		names = append(names, s.Name)
	}
	list := "none are registered"
	if len(names) > 0 {
		list = "the registered tools are: " + strings.Join(names, ", ")
	}
	return fmt.Errorf("tool %q is not registered (%s); call one of those, or list the tools again: %w",
		name, list, kit.ErrUnknownTool)
}

// normalizeArgs maps absent arguments to the empty object.
func normalizeArgs(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}")
	}
	return args
}

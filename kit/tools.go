package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ToolsService is the registry of model-facing tools. The root runs it as plugin "tools".
//
// Mount code has it as ctx.tools, without inject: the methods below, which return schemas
// and never a tool's execute function, and one member only JavaScript has, because no Go
// signature can express its execute function:
//
//	tools.register({name, description, parameters, execute}): () => void
//
// It registers a tool owned by the plugin and returns a function that removes it. name is
// 1 to 64 letters, digits, _ or -; parameters is the JSON Schema of the arguments, an
// object schema such as {type: 'object', properties: {text: {type: 'string'}}} (omitted:
// any object; it may be spelled inputSchema, as get returns it); execute(args) returns JSON
// data or a Promise of it. The sandbox bounds how many tools a mount holds at once
// (Limits.MaxTools).
var ToolsService = NewService[*Tools]("tools")

// ToolsChange is emitted after every registration and removal of a tool.
var ToolsChange = NewEvent[ToolsChangeEvent]("tools/change")

// ToolsChangeEvent is the payload of ToolsChange.
type ToolsChangeEvent struct {
	// Tool is the name of the tool that was registered or removed.
	Tool string
	// Registered is true for a registration and false for a removal.
	Registered bool
}

// ErrUnknownTool reports a call of a tool that is not registered.
var ErrUnknownTool = errors.New("unknown tool")

// ToolSchema is the read-only description of a tool: what a model sees.
type ToolSchema struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema and OutputSchema are JSON Schema documents (draft 2020-12).
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// A Tool is a model-facing tool: its schema and the function that runs it.
type Tool struct {
	ToolSchema
	// Execute runs the tool. input is the JSON arguments; the result is JSON.
	Execute func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)
}

// Tools is the tool registry. Registrations are effects of the registering fiber.
type Tools struct {
	root *Context

	mu     sync.RWMutex
	byName map[string]*toolEntry
	order  []*toolEntry
	checks []*toolCheck
}

// A toolCheck is a check every registration must pass, added by AddCheck.
type toolCheck struct {
	check func(ToolSchema) error
}

type toolEntry struct {
	tool  Tool
	owner *Fiber
	scope *scope
}

// Register adds tool as an effect of c's fiber and announces it with ToolsChange.
// A name already registered is an error naming the owning plugin; a schema that
// CheckToolSchema refuses (one that refers to itself without descending into the value,
// which would overflow a validator's stack) is an error wrapping its *SchemaError.
//
//cordis:internal
func (t *Tools) Register(c *Context, tool Tool) (unregister func(), err error) {
	if c == nil {
		return nil, ErrNilContext
	}
	if tool.Name == "" {
		return nil, fmt.Errorf("kit: tool has no Name")
	}
	if tool.Execute == nil {
		return nil, fmt.Errorf("kit: tool %q has no Execute func", tool.Name)
	}
	if err := checkSchemas(tool.ToolSchema); err != nil {
		return nil, fmt.Errorf("kit: tool %q: %w", tool.Name, err)
	}
	if err := t.runChecks(tool.ToolSchema); err != nil {
		return nil, fmt.Errorf("kit: tool %q: %w", tool.Name, err)
	}
	e := &toolEntry{tool: tool, owner: c.fiber}
	f := c.fiber
	// The entry becomes callable only once its effect (and so its scope) exists, and the
	// duplicate check and the insert happen under one lock.
	t.mu.Lock()
	if old, ok := t.byName[tool.Name]; ok {
		t.mu.Unlock()
		return nil, fmt.Errorf("kit: tool %q is already registered by plugin %q; plugin %q cannot register it again: %w",
			tool.Name, old.owner.name, c.fiber.name, ErrDuplicate)
	}
	eff, err := f.addEffect(label{"tool", tool.Name}, func(sc *scope) { e.scope = sc }, func(context.Context) error {
		t.remove(e)
		return nil
	})
	if err != nil {
		t.mu.Unlock()
		return nil, err
	}
	t.byName[tool.Name] = e
	t.order = append(t.order, e)
	t.mu.Unlock()
	ToolsChange.Emit(t.root, ToolsChangeEvent{Tool: tool.Name, Registered: true})
	return func() { _ = f.cancelEffect(context.Background(), eff) }, nil
}

// AddCheck adds a check that every later registration must pass, as an effect of c's
// fiber: an adapter that cannot serve some tools (one whose listing would be too large to
// send, say) refuses them when they are registered, so the plugin registering one gets
// the error, rather than finding it missing. check must be safe for concurrent use; it
// runs without the registry's lock held, and its error is returned by Register.
//
//cordis:internal
func (t *Tools) AddCheck(c *Context, check func(ToolSchema) error) error {
	if check == nil {
		return fmt.Errorf("kit: AddCheck needs a non-nil check")
	}
	tc := &toolCheck{check: check}
	t.mu.Lock()
	t.checks = append(t.checks, tc)
	t.mu.Unlock()
	remove := func() error {
		t.mu.Lock()
		// A new slice: runChecks iterates the old one without the lock.
		t.checks = slices.DeleteFunc(slices.Clone(t.checks), func(x *toolCheck) bool { return x == tc })
		t.mu.Unlock()
		return nil
	}
	if err := c.Effect(remove); err != nil {
		remove()
		return err
	}
	return nil
}

// runChecks runs the checks of AddCheck, outside the lock: they may read the registry.
func (t *Tools) runChecks(s ToolSchema) error {
	t.mu.RLock()
	checks := t.checks
	t.mu.RUnlock()
	for _, tc := range checks {
		if err := tc.check(s); err != nil {
			return err
		}
	}
	return nil
}

// checkSchemas refuses schemas that validators cannot walk with bounded work (see
// CheckToolSchema), so no consumer of the registry meets one.
func checkSchemas(s ToolSchema) error {
	for _, sc := range []struct {
		name string
		doc  json.RawMessage
	}{{"inputSchema", s.InputSchema}, {"outputSchema", s.OutputSchema}} {
		if len(bytes.TrimSpace(sc.doc)) == 0 {
			continue
		}
		if _, err := CheckToolSchema(sc.doc, sc.name); err != nil {
			return err
		}
	}
	return nil
}

func (t *Tools) remove(e *toolEntry) {
	t.mu.Lock()
	found := t.byName[e.tool.Name] == e
	if found {
		delete(t.byName, e.tool.Name)
		t.order = slices.DeleteFunc(t.order, func(x *toolEntry) bool { return x == e })
	}
	t.mu.Unlock()
	if found {
		ToolsChange.Emit(t.root, ToolsChangeEvent{Tool: e.tool.Name})
	}
}

// Schemas returns the registered tools in registration order. The result is a copy.
func (t *Tools) Schemas() []ToolSchema {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]ToolSchema, len(t.order))
	for i, e := range t.order {
		out[i] = e.tool.ToolSchema.clone()
	}
	return out
}

// Get returns the schema of the named tool.
func (t *Tools) Get(name string) (ToolSchema, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	e, ok := t.byName[name]
	if !ok {
		return ToolSchema{}, false
	}
	return e.tool.ToolSchema.clone(), true
}

// Owner returns the name of the plugin that registered the named tool.
func (t *Tools) Owner(name string) (string, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	e, ok := t.byName[name]
	if !ok {
		return "", false
	}
	return e.owner.name, true
}

// Call runs the named tool. The call counts as a running callback of the owning fiber, so
// disposing that fiber waits for it; a tool whose fiber is unloading is reported unknown.
//
//cordis:internal
func (t *Tools) Call(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error) {
	t.mu.RLock()
	e, ok := t.byName[name]
	t.mu.RUnlock()
	if !ok || !e.scope.enter() {
		return nil, fmt.Errorf("kit: tool %q: %w", name, ErrUnknownTool)
	}
	defer e.scope.exit()
	return callTool(ctx, e, input)
}

func callTool(ctx context.Context, e *toolEntry, input json.RawMessage) (out json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %q of plugin %q: %w: %v", e.tool.Name, e.owner.name, ErrPanic, r)
		}
	}()
	return e.tool.Execute(ctx, input)
}

func (s ToolSchema) clone() ToolSchema {
	s.InputSchema = bytes.Clone(s.InputSchema)
	s.OutputSchema = bytes.Clone(s.OutputSchema)
	return s
}

// A ToolDecl declares a model-facing tool with Go input and output types. Declare tools as
// package-level variables; the generator derives their JSON Schemas from In and Out and
// takes the description from the doc comment:
//
//	// Echo returns its input.
//	var Echo = kit.NewTool[EchoInput, EchoOutput]("echo")
type ToolDecl[In, Out any] struct {
	name string
}

// NewTool declares a tool. It panics if name is empty.
func NewTool[In, Out any](name string) *ToolDecl[In, Out] {
	if name == "" {
		panic("kit: NewTool with an empty name")
	}
	return &ToolDecl[In, Out]{name: name}
}

// Name returns the tool name.
func (d *ToolDecl[In, Out]) Name() string { return d.name }

// Bind returns a Tool that decodes its JSON input into In, runs fn and encodes the Out.
// schema usually comes from the generated catalog; its Name is set to the declared name.
func (d *ToolDecl[In, Out]) Bind(schema ToolSchema, fn func(ctx context.Context, in In) (Out, error)) Tool {
	schema.Name = d.name
	return Tool{ToolSchema: schema, Execute: func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
		var in In
		if len(bytes.TrimSpace(input)) > 0 {
			if err := json.Unmarshal(input, &in); err != nil {
				return nil, fmt.Errorf("tool %q: decoding input: %w", d.name, err)
			}
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	}}
}

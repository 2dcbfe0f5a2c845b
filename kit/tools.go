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
	// Session is the session of the plugin that registered the tool; "" for the runtime's
	// own. A session hears only of its own tools and the runtime's.
	Session Session
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
//
// A tool registered by a fiber of a session belongs to that session: a view of the
// registry for a session (Session, and what ToolsService.Get returns to that session's
// fibers) lists, describes and calls only the runtime's own tools and that session's.
// Tool names are one namespace: a name another session holds is refused without saying
// who holds it. The runtime's own view (what its fibers get) sees every tool.
type Tools struct {
	reg     *toolRegistry
	session string // the session of a scoped view
	scoped  bool   // a view of one session: only its tools and the runtime's
}

// toolRegistry is the state every view of one runtime's registry shares.
type toolRegistry struct {
	root *Context

	mu     sync.RWMutex
	byName map[string]*toolEntry
	order  []*toolEntry
	checks []*toolCheck
}

// Session returns the view of the registry for session: the runtime's own tools and
// those of session's fibers. Session("") sees the runtime's own tools only. It is for the
// runtime's Go code (an adapter serving each session its tools), never for a plugin.
//
//cordis:internal
func (t *Tools) Session(session string) *Tools {
	return &Tools{reg: t.reg, session: session, scoped: true}
}

func (t *Tools) forSession(session string) any { return t.Session(session) }

// sees reports whether the view shows e.
func (t *Tools) sees(e *toolEntry) bool {
	return !t.scoped || e.owner.session == "" || e.owner.session == t.session
}

// entry returns the named tool if the view shows it. t.reg.mu held.
func (t *Tools) entry(name string) (*toolEntry, bool) {
	e, ok := t.reg.byName[name]
	if !ok || !t.sees(e) {
		return nil, false
	}
	return e, true
}

// A toolCheck is a check every registration must pass, added by AddCheck.
type toolCheck struct {
	check func(session string, s ToolSchema) error
}

type toolEntry struct {
	tool  Tool
	owner *Fiber
	scope *scope
}

// Register adds tool as an effect of c's fiber and announces it with ToolsChange.
// A name already registered is an error naming the owning plugin; so is the first error
// of a check added with AddCheck. The kit does not read the schemas itself: the invoker
// (package invoke) adds the check that refuses a schema it could not validate against
// with bounded work, and every runtime that calls its tools through it has that check.
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
	if err := t.runChecks(c.fiber.session, tool.ToolSchema); err != nil {
		return nil, fmt.Errorf("kit: tool %q: %w", tool.Name, err)
	}
	e := &toolEntry{tool: tool, owner: c.fiber}
	f := c.fiber
	reg := t.reg
	// The entry becomes callable only once its effect (and so its scope) exists, and the
	// duplicate check and the insert happen under one lock.
	reg.mu.Lock()
	if old, ok := reg.byName[tool.Name]; ok {
		reg.mu.Unlock()
		if old.owner.session != "" && old.owner.session != f.session {
			return nil, fmt.Errorf("kit: tool name %q is taken in this runtime; plugin %q must register its tool under another name: %w",
				tool.Name, f.name, ErrDuplicate)
		}
		return nil, fmt.Errorf("kit: tool %q is already registered by plugin %q; plugin %q cannot register it again: %w",
			tool.Name, old.owner.name, f.name, ErrDuplicate)
	}
	eff, err := f.addEffect(label{"tool", tool.Name}, func(sc *scope) { e.scope = sc }, func(context.Context) error {
		reg.remove(e)
		return nil
	})
	if err != nil {
		reg.mu.Unlock()
		return nil, err
	}
	reg.byName[tool.Name] = e
	reg.order = append(reg.order, e)
	reg.mu.Unlock()
	ToolsChange.Emit(reg.root, ToolsChangeEvent{Tool: tool.Name, Registered: true, Session: Session(f.session)})
	return func() { _ = f.cancelEffect(context.Background(), eff) }, nil
}

// AddCheck adds a check that every later registration must pass, as an effect of c's
// fiber: an adapter that cannot serve some tools (one whose listing would be too large to
// send, say) refuses them when they are registered, so the plugin registering one gets
// the error, rather than finding it missing. check receives the registering plugin's
// session ("" for the runtime's own), so an adapter can keep each session's room apart.
// It must be safe for concurrent use; it runs without the registry's lock held, and its
// error is returned by Register.
//
//cordis:internal
func (t *Tools) AddCheck(c *Context, check func(session string, s ToolSchema) error) error {
	if check == nil {
		return fmt.Errorf("kit: AddCheck needs a non-nil check")
	}
	tc := &toolCheck{check: check}
	reg := t.reg
	reg.mu.Lock()
	reg.checks = append(reg.checks, tc)
	reg.mu.Unlock()
	remove := func() error {
		reg.mu.Lock()
		// A new slice: runChecks iterates the old one without the lock.
		reg.checks = slices.DeleteFunc(slices.Clone(reg.checks), func(x *toolCheck) bool { return x == tc })
		reg.mu.Unlock()
		return nil
	}
	if err := c.Effect(remove); err != nil {
		remove()
		return err
	}
	return nil
}

// runChecks runs the checks of AddCheck, outside the lock: they may read the registry.
func (t *Tools) runChecks(session string, s ToolSchema) error {
	t.reg.mu.RLock()
	checks := t.reg.checks
	t.reg.mu.RUnlock()
	for _, tc := range checks {
		if err := tc.check(session, s); err != nil {
			return err
		}
	}
	return nil
}

func (r *toolRegistry) remove(e *toolEntry) {
	r.mu.Lock()
	found := r.byName[e.tool.Name] == e
	if found {
		delete(r.byName, e.tool.Name)
		r.order = slices.DeleteFunc(r.order, func(x *toolEntry) bool { return x == e })
	}
	r.mu.Unlock()
	if found {
		ToolsChange.Emit(r.root, ToolsChangeEvent{Tool: e.tool.Name, Session: Session(e.owner.session)})
	}
}

// Schemas returns the tools the view shows, in registration order. The result is a copy.
func (t *Tools) Schemas() []ToolSchema {
	t.reg.mu.RLock()
	defer t.reg.mu.RUnlock()
	out := make([]ToolSchema, 0, len(t.reg.order))
	for _, e := range t.reg.order {
		if t.sees(e) {
			out = append(out, e.tool.ToolSchema.clone())
		}
	}
	return out
}

// Get returns the schema of the named tool.
func (t *Tools) Get(name string) (ToolSchema, bool) {
	t.reg.mu.RLock()
	defer t.reg.mu.RUnlock()
	e, ok := t.entry(name)
	if !ok {
		return ToolSchema{}, false
	}
	return e.tool.ToolSchema.clone(), true
}

// SessionOf returns the session whose plugin registered the named tool ("" for the
// runtime's own), if the view shows it.
//
//cordis:internal
func (t *Tools) SessionOf(name string) (string, bool) {
	t.reg.mu.RLock()
	defer t.reg.mu.RUnlock()
	e, ok := t.entry(name)
	if !ok {
		return "", false
	}
	return e.owner.session, true
}

// Has reports whether the view shows the named tool.
func (t *Tools) Has(name string) bool {
	t.reg.mu.RLock()
	defer t.reg.mu.RUnlock()
	_, ok := t.entry(name)
	return ok
}

// Owner returns the name of the plugin that registered the named tool.
func (t *Tools) Owner(name string) (string, bool) {
	t.reg.mu.RLock()
	defer t.reg.mu.RUnlock()
	e, ok := t.entry(name)
	if !ok {
		return "", false
	}
	return e.owner.name, true
}

// Call runs the named tool. The call counts as a running callback of the owning fiber, so
// disposing that fiber waits for it; a tool whose fiber is unloading, or that the view
// does not show, is reported unknown.
//
//cordis:internal
func (t *Tools) Call(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error) {
	t.reg.mu.RLock()
	e, ok := t.entry(name)
	t.reg.mu.RUnlock()
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

// Bind returns a Tool that decodes its JSON arguments into In, runs fn and encodes the
// Out. schema usually comes from the generated catalog (package tooldecl looks it up and
// binds in one call); its Name is set to the declared name.
//
// The arguments are decoded strictly: a field In does not have, a value of another type
// or data after the arguments is an error that tells the model to call again with the
// fields the schema lists, and fn does not run. Empty or null arguments are In's zero
// value.
func (d *ToolDecl[In, Out]) Bind(schema ToolSchema, fn func(ctx context.Context, in In) (Out, error)) Tool {
	schema.Name = d.name
	return Tool{ToolSchema: schema, Execute: func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
		var in In
		if err := decodeArgs(input, &in); err != nil {
			return nil, fmt.Errorf("%s: the arguments do not fit its input schema (%v); call it again with only the fields the schema lists, each of the type it says", d.name, err)
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	}}
}

// decodeArgs decodes a tool's JSON arguments into v, refusing unknown fields and
// anything after the first value; empty or null arguments leave v as it is.
func decodeArgs(input json.RawMessage, v any) error {
	t := bytes.TrimSpace(input)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if len(bytes.TrimSpace(t[dec.InputOffset():])) > 0 {
		return errors.New("data after the first JSON value")
	}
	return nil
}

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cordiskit/cordiskit/internal/schema"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
)

// toolsView builds ctx.tools: the catalogued tools service (kit.ToolsService) through the
// façade's generated binding — so its members, names and shapes are the ones cordis_inspect
// and the generated docs show — plus register, which only JavaScript has: it takes an
// execute function, which no catalogued Go signature can express (kit.ToolsService's doc
// documents it). The binding returns schemas only, so no tool's execute is reachable. A
// façade without the binding (one built without the kit's core tier) gives register alone.
func (f *ctxFacade) toolsView() goja.Value {
	r := f.r
	members := map[string]goja.Value{}
	if bind, ok := r.engine.facade.Services[kit.ToolsService.Key()]; ok {
		bound, err := bind(r, f.registry("ctx.tools"))
		if err != nil {
			r.throw(fmt.Errorf("ctx.tools: %w", err))
		}
		// Copied into a read-only object: mount code cannot replace a member of its ctx.
		for _, k := range bound.Keys() {
			members[k] = bound.Get(k)
		}
	}
	members["register"] = r.Func("ctx.tools.register", f.registerTool)
	keys := slices.Sorted(maps.Keys(members))
	return r.rt.NewDynamicObject(&toolsObject{readOnlyObject{r: r, name: "ctx.tools", keys: keys, members: members}})
}

// toolsObject is ctx.tools: read-only, and reading a member it lacks throws a message that
// names the members it has, as ctx does for a name it does not grant, instead of leaving
// goja's bare "has no member" for the call.
type toolsObject struct{ readOnlyObject }

// Get implements goja.DynamicObject.
func (o *toolsObject) Get(key string) goja.Value {
	if v, ok := o.members[key]; ok {
		return v
	}
	if objectProtoNames[key] {
		return nil
	}
	o.r.throwf("ctx.tools.%s does not exist%s. ctx.tools has %s; cordis_inspect what:\"api\" name:\"tools\" shows each with its shapes",
		key, suggest(key, o.keys), strings.Join(o.keys, ", "))
	return nil
}

func (f *ctxFacade) registry(method string) *kit.Tools {
	f.checkLive(method)
	t, ok := kit.ToolsService.Get(f.c)
	if !ok {
		f.r.throwf("%s: the tools service is not available right now", method)
	}
	return t
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// registerTool validates a tool definition and registers it as an effect of the mount.
func (f *ctxFacade) registerTool(call goja.FunctionCall) goja.Value {
	r := f.r
	const method = "ctx.tools.register"
	def := r.checkTool(method, call.Argument(0))
	tools := f.registry(method)
	tool := kit.Tool{ToolSchema: def.schema, Execute: r.toolExecute(def.schema.Name, def.exec, def.params)}
	release := f.takeTool(method) // Limits.MaxTools
	var unregister func()
	var err error
	r.Unlocked(func() { unregister, err = tools.Register(f.c, tool) })
	if err != nil {
		release()
		r.throw(fmt.Errorf("%s(%q): %w", method, def.schema.Name, err))
	}
	return r.Func(method+" disposer", func(goja.FunctionCall) goja.Value {
		r.Unlocked(unregister) // removing a tool emits tools/change, possibly into this realm
		release()
		return goja.Undefined()
	})
}

// CheckTool checks v as a tool definition exactly as ctx.tools.register does (its
// members, name, description, execute and the arguments' JSON Schema) and throws the same
// teaching errors, prefixed with method, without registering it: for a runtime's own
// JavaScript API that takes definitions before it hands them to ctx.tools.register (the
// runner's harness.defineTool). Lock held.
func (r *Realm) CheckTool(method string, v goja.Value) { r.checkTool(method, v) }

// A checkedTool is a tool definition that passed checkTool.
type checkedTool struct {
	schema kit.ToolSchema
	exec   goja.Callable
	params *schema.Schema
}

// checkTool checks the tool definition v for method, throwing what is wrong with it.
func (r *Realm) checkTool(method string, v goja.Value) checkedTool {
	def := conv.Object(thrower{r}, v, method, "tool")
	name := toolString(r, method, def, "name")
	if !toolNameRE.MatchString(name) {
		r.throw(&conv.ArgError{Method: method, Param: "tool.name", Want: "1 to 64 letters, digits, _ or - (model APIs require it)", Got: strconv.Quote(name)})
	}
	desc := toolString(r, method, def, "description")
	if max := r.engine.limits.MaxBytes; len(desc) > max {
		// The description is sent to every client in the tool list: keep it to the size of
		// any other value that leaves the sandbox.
		r.throw(&conv.ArgError{Method: method, Param: "tool.description", Want: fmt.Sprintf("at most %d bytes (Limits.MaxBytes); say what the tool does in a few sentences", max), Got: fmt.Sprintf("%d bytes", len(desc))})
	}
	exec, ok := goja.AssertFunction(def.Get("execute"))
	if !ok {
		r.throw(&conv.ArgError{Method: method, Param: "tool.execute", Want: "a function (args) => result", Got: conv.TypeName(def.Get("execute"))})
	}
	key, pv := toolParameters(r, method, def)
	params := json.RawMessage(`{"type":"object","properties":{}}`)
	if pv != nil {
		var err error
		if params, err = r.toJSON(pv, "tool."+key); err != nil {
			r.throw(fmt.Errorf("%s: %w", method, err))
		}
	}
	c := checkedTool{schema: kit.ToolSchema{Name: name, Description: desc, InputSchema: params}, exec: exec}
	var err error
	// Pure Go: not under the lock. The root must be an object schema: arguments are an object.
	r.Unlocked(func() { c.params, err = schema.Compile(params, "tool."+key, &schema.Options{Object: true}) })
	if err != nil {
		r.throw(fmt.Errorf("%s(%q): %w", method, name, err))
	}
	return c
}

// toolDefKeys are the members of a tool definition. parameters and inputSchema are one
// member under two names: parameters as most model APIs spell it, inputSchema as
// ctx.tools.get returns it (kit.ToolSchema), so a definition made from a schema the
// registry returned keeps its arguments' schema.
var toolDefKeys = []string{"name", "description", "parameters", "inputSchema", "execute"}

// toolParameters checks that def has only the members of a tool definition — a member it
// does not know (a misspelt parameters, an outputSchema) would otherwise be dropped without
// a word, leaving a tool that accepts any arguments — and returns the arguments' schema
// with the name it was given under, or a nil value when there is none. An undefined member
// counts as absent.
func toolParameters(r *Realm, method string, def *goja.Object) (string, goja.Value) {
	for _, k := range def.Keys() {
		if slices.Contains(toolDefKeys, k) || goja.IsUndefined(def.Get(k)) {
			continue
		}
		if k == "outputSchema" {
			r.throwf("%s: tool.outputSchema is not taken: a JavaScript tool's result is not checked against a schema. "+
				"Remove outputSchema and say what execute returns in the description", method)
		}
		r.throwf("%s: tool.%s is not a member of a tool definition%s; a definition has name, description, "+
			"parameters (the arguments' JSON Schema, also spelled inputSchema) and execute", method, k, suggest(k, toolDefKeys))
	}
	params, input := def.Get("parameters"), def.Get("inputSchema")
	has := func(v goja.Value) bool { return v != nil && !goja.IsUndefined(v) }
	switch {
	case has(params) && has(input):
		r.throwf("%s: tool.parameters and tool.inputSchema are the same member (the arguments' JSON Schema) under two names; give one of them", method)
	case has(input):
		return "inputSchema", input
	case has(params):
		return "parameters", params
	}
	return "parameters", nil
}

func toolString(r *Realm, method string, def *goja.Object, key string) string {
	v := def.Get(key)
	if v == nil || !goja.IsString(v) || v.String() == "" {
		r.throw(&conv.ArgError{Method: method, Param: "tool." + key, Want: "a non-empty string", Got: conv.TypeName(v)})
	}
	return v.String()
}

// toolExecute is the Go side of a JS tool: it validates the arguments against the schema
// (schema.Schema.Validate: first their depth, when the schema is recursive), runs
// execute in the realm (bounded by CallTimeout) and requires a JSON result. A tool whose
// calls keep running into (or near) that bound is struck out (toolStriker): its calls
// are refused, without the lock, with an error that says why and what to do.
func (r *Realm) toolExecute(name string, exec goja.Callable, params *schema.Schema) func(context.Context, json.RawMessage) (json.RawMessage, error) {
	what := fmt.Sprintf("tool %q", name)
	strikes := &toolStriker{r: r, name: name}
	return func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
		if strikes.isOut() {
			return nil, strikes.refusal()
		}
		if len(bytes.TrimSpace(input)) == 0 {
			input = json.RawMessage(`{}`)
		}
		if err := params.Validate(input); err != nil {
			if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
				return nil, fmt.Errorf("tool %q: the arguments are not JSON: %w", name, se)
			}
			return nil, fmt.Errorf("tool %q: invalid arguments: %w", name, err)
		}
		var out json.RawMessage
		run := &toolRun{}
		err := r.deliver(ctx, what, strikes.wrap(exec, run), func() []goja.Value {
			return []goja.Value{FromJSON(r, input)}
		}, func(v goja.Value) error {
			b, err := r.appendJSON(nil, v, "result", 0)
			if le := (*LimitError)(nil); errors.As(err, &le) {
				return fmt.Errorf("%s: tool %q: the result is too large to return: %w", r.id, name, err)
			}
			if err != nil {
				return fmt.Errorf("%s: tool %q: execute must return JSON data (a string, a finite number, a boolean, null, an array or a plain object): %w", r.id, name, err)
			}
			out = b
			return nil
		})
		if err = strikes.judge(ctx, run, err); err != nil {
			return nil, err
		}
		return out, nil
	}
}

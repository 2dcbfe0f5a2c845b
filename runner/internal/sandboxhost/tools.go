package sandboxhost

import (
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/sandbox/bind"
	"github.com/dop251/goja"
)

// defineTool is harness.defineTool(definition) (docs/dynamic-plugins.md, "The host half"):
// it checks the definition as ctx.tools.register does (sandbox.Realm.CheckTool, with the
// same teaching errors under its own name) and returns a read-only copy stamped with
// marker, the run's private symbol, which is what harness.registerTool takes. Defining
// registers nothing.
func defineTool(r *sandbox.Realm, marker *goja.Symbol) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		def := call.Argument(0)
		r.CheckTool("harness.defineTool", def)
		src := def.(*goja.Object) // CheckTool refuses anything else
		tool := bind.PlainObject(r)
		for _, k := range src.Keys() {
			if v := src.Get(k); !goja.IsUndefined(v) {
				_ = tool.DefineDataProperty(k, v, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
			}
		}
		_ = tool.DefineDataPropertySymbol(marker, bind.Value(r, true), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
		return tool
	}
}

// registerTool is harness.registerTool(ctx, tool) (docs/dynamic-plugins.md, "The host
// half"): tool must be a product of this run's harness.defineTool (checked first), and it
// is handed to ctx.tools.register of the ctx the plugin's apply received — the mount's one
// registration path, so the tool is an effect of the run's fiber (gone at stop, update and
// undefine), counts toward Limits.MaxTools and is refused under a name another plugin
// holds. It returns the registration's disposer.
func registerTool(r *sandbox.Realm, marker *goja.Symbol) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		tool, ok := call.Argument(1).(*goja.Object)
		if !ok || !stamped(tool, marker) {
			bind.ThrowTypeError(r, "harness.registerTool(ctx, tool): tool must be what harness.defineTool returned in this host half (a copy made with spread or Object.assign is not one): "+
				"const tool = harness.defineTool({ name, description, parameters, execute }); then harness.registerTool(ctx, tool) inside apply(ctx)")
		}
		register, tools := ctxToolsRegister(call.Argument(0))
		if register == nil {
			bind.ThrowTypeError(r, "harness.registerTool(ctx, tool): ctx must be the ctx your plugin's apply(ctx) receives (the tool lives as long as that run), such as: return { name: 'clock', apply(ctx) { harness.registerTool(ctx, tool) } }")
		}
		off, err := register(tools, tool)
		if err != nil {
			panic(err) // the JavaScript exception (or interrupt) as ctx.tools.register threw it
		}
		return off
	}
}

// ctxToolsRegister returns ctx.tools.register and ctx.tools, or nil when v is not a ctx
// that has them.
func ctxToolsRegister(v goja.Value) (goja.Callable, goja.Value) {
	ctx, ok := v.(*goja.Object)
	if !ok {
		return nil, nil
	}
	tools, ok := ctx.Get("tools").(*goja.Object)
	if !ok {
		return nil, nil
	}
	register, _ := goja.AssertFunction(tools.Get("register"))
	return register, tools
}

// stamped reports whether o carries marker (set by defineTool).
func stamped(o *goja.Object, marker *goja.Symbol) bool {
	v := o.GetSymbol(marker)
	return v != nil && v.ToBoolean()
}

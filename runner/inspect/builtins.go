package inspect

import (
	"strings"

	"github.com/cordiskit/cordiskit/catalog"
)

// builtin is one global or ctx verb of a host half, as Builtin.listBuiltins lists it.
type builtin struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"` // object, function, constructor, ctx-verb, trap or undefined
	Signature   string `json:"signature,omitempty"`
	Description string `json:"description"`
}

type builtinsOut struct {
	Builtins        []builtin   `json:"builtins"`
	ReferencedTypes []typeShape `json:"referencedTypes"`
}

// hostBuiltins lists what a host half has (docs/dynamic-plugins.md, "The host half"): the
// ctx it is handed, its globals, and the Node.js APIs that throw and teach the
// alternative. The ctx verbs come from catalog.FacadeVerbs, the list the sandbox
// implements and cordis_inspect shows.
func hostBuiltins() []builtin {
	out := []builtin{{Name: "ctx", Kind: "object", Signature: "apply(ctx)",
		Description: "the plugin's restricted context, handed to apply (not a global): the verbs below, ctx.tools, and the services named in inject. Framework internals (root, fiber, plugin, extend, emit, …) are not there."}}
	for _, v := range catalog.FacadeVerbs {
		out = append(out, builtin{Name: "ctx." + strings.Join(v.Names(), "/"), Kind: "ctx-verb", Signature: strings.Join(v.Forms, " / "), Description: v.Doc})
	}
	out = append(out,
		builtin{Name: "harness.handle", Kind: "function", Signature: "harness.handle(method, fn): () => void",
			Description: "register fn(args) as this run's handler for method, which the client half calls with host.call(method, args); args and the result are JSON. Each method once per run (a second registration throws); handlers live as long as the run."},
		builtin{Name: "harness.defineTool", Kind: "function", Signature: "harness.defineTool({ name, description, parameters, execute }): tool",
			Description: "check a tool definition as ctx.tools.register does (parameters is the arguments' JSON Schema, execute(args) returns JSON) and return it read-only, stamped for harness.registerTool; it registers nothing."},
		builtin{Name: "harness.registerTool", Kind: "function", Signature: "harness.registerTool(ctx, tool): () => void",
			Description: "register tool, only what harness.defineTool returned, through the ctx apply received (ctx.tools.register): the model can call it for as long as this run lives; returns its disposer. A name another Plugin holds is refused."},
		builtin{Name: "console", Kind: "object", Signature: "console.log/info/warn/error/debug(...args)", Description: "writes to the host log, tagged with the Plugin id."},
		builtin{Name: "btoa", Kind: "function", Signature: "btoa(text): string", Description: "UTF-8 text to base64."},
		builtin{Name: "atob", Kind: "function", Signature: "atob(base64): string", Description: "base64 to UTF-8 text."},
		builtin{Name: "TextEncoder", Kind: "constructor", Signature: "new TextEncoder().encode(text): Uint8Array", Description: "UTF-8 encoding."},
		builtin{Name: "TextDecoder", Kind: "constructor", Signature: "new TextDecoder().decode(bytes): string", Description: "UTF-8 decoding."},
	)
	for _, t := range []struct{ names, instead string }{
		{"require", "there are no Node modules: declare services in inject (fs, web, bash, …) and call ctx.<service>; Service.listService shows what exists."},
		{"setTimeout setInterval setImmediate clearTimeout clearInterval", "declare inject: ['timer'] and use ctx.setTimeout / ctx.setInterval / ctx.sleep, which the plugin owns."},
		{"fetch", "declare inject: ['web'] and use ctx.web, if the runtime provides it."},
	} {
		for _, n := range strings.Fields(t.names) {
			out = append(out, builtin{Name: n, Kind: "trap", Description: "throws: " + t.instead})
		}
	}
	for _, n := range []string{"process", "Buffer"} {
		out = append(out, builtin{Name: n, Kind: "undefined", Description: "not defined (typeof is \"undefined\"); there is no Node.js here."})
	}
	return out
}

package runner

// harnessPrelude gives a host half its `harness` (spec §11.5) in plain JavaScript, until
// the sandbox installs the seed's harness symbols itself (PROVISIONAL: another part of the
// sandbox work adds harness.handle, defineTool and registerTool natively; this prelude then
// goes away and the handler table is read through that API instead).
//
// It is one line, prepended to the code's first line, so line numbers of errors and stacks
// stay those of the code as written (columns on line 1 shift; define checks the code
// without it, see SandboxHost.Check). The table is a null-prototype object reached from Go
// through a frozen, non-writable global; the helpers it uses are captured before any
// code of the half runs, so the half cannot redirect them (it can only break its own
// handlers, in its own realm).
const harnessPrelude = `const harness = (() => { const t = Object.create(null), keys = Object.keys, q = JSON.stringify, fail = (m) => { throw new TypeError(m); }; ` +
	`Object.defineProperty(globalThis, "` + handlerTableKey + `", { value: Object.freeze({ get: (m) => t[m], names: () => keys(t) }) }); ` +
	`const handle = (method, fn) => { ` +
	`if (typeof method !== "string" || method === "") fail("harness.handle(method, fn): method must be a non-empty string, such as harness.handle('refresh', async (args) => ({ ok: true }))"); ` +
	`if (typeof fn !== "function") fail("harness.handle(" + q(method) + ", fn): fn must be a function that takes the JSON arguments and returns JSON data (or null)"); ` +
	`if (t[method] !== undefined) fail("harness.handle(" + q(method) + "): this host half already registered that method; register each method once (dispatch on the arguments inside one handler), or call the disposer the first harness.handle returned before registering it again"); ` +
	`t[method] = fn; return () => { if (t[method] === fn) delete t[method]; }; }; ` +
	`const later = (name) => () => fail("harness." + name + " is not available in this runtime yet; register a tool with ctx.tools.register({ name, description, parameters, execute }) inside apply"); ` +
	`return Object.freeze({ handle, defineTool: later("defineTool"), registerTool: later("registerTool") }); })(); `

// handlerTableKey is the global through which Go reads the handler table.
const handlerTableKey = "__cordis_handlers__"

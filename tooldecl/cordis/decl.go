// Package cordis declares the three model-facing cordis tools — their names, input and
// output types — so that gen-cordis-api can derive their JSON Schemas and describe them in
// tool-catalog.md. The behaviour lives in package toolset; this package has no logic and no
// dependencies beyond the kit, so the generated core tier can reference it.
package cordis

import "github.com/cordiskit/cordiskit/kit"

// Inspect reads the live cordis runtime of this process; it changes nothing.
//
// Sections, in this order (omit what for all of them):
//   - services: every provided ctx service and the plugin that owns it.
//   - plugins: every live plugin fiber and its state.
//   - tools: the model-facing tools registered right now, i.e. what you can call.
//   - temporary: only the plugins created with cordis_mount: id, name, state, the services
//     they provide and the services they wait for.
//   - api: method signatures and type shapes of every LIVE catalogued service, plus the ctx
//     verbs a mounted plugin receives. Read it before writing code that calls a service;
//     never guess a field's type.
//   - events: every catalogued event with its dispatch mode and exact listener signature.
//
// name (valid only with what "api" or "events") narrows the report to one service or event
// and adds its full documentation. Temporary plugins live only in memory: they persist
// across turns and vanish on cordis_unmount or when the process restarts.
var Inspect = kit.NewTool[InspectInput, string]("cordis_inspect")

// Mount evaluates JavaScript you write and mounts the plugin it returns into the live
// runtime, as a temporary plugin tracked under an id such as "dyn-1". It stays mounted
// across turns until cordis_unmount or a process restart; it is never saved, installed or
// made permanent. Everything it registers (listeners, tools, services, timers, effects) is
// removed when it is unmounted.
//
// code is the BODY of an async function and MUST return a plugin, in one of two forms:
//
//	return (ctx) => { ctx.on('tools/change', (tool, registered) => console.log(tool)) }
//	return { name: 'greeter', inject: ['timer'], apply(ctx) { … } }   // preferred
//
// The object form activates only once every service in inject exists, and only those
// services are reachable as ctx.<name> (an undeclared one throws, even if it exists). If a
// service it injects goes away, the plugin returns to pending and its registrations are
// removed; it comes back when the service does. The mount result says running or pending.
//
// Inside apply, ctx offers: ctx.on(event, fn) and ctx.once(event, fn) for catalogued events
// (list them with cordis_inspect what:"events"; a waterfall listener receives a trailing
// next() and MUST call it to delegate — returning without it vetoes); ctx.provide(name,
// value) to offer a service another mount can inject; ctx.get(name); ctx.effect(fn) to run
// fn on unmount; ctx.setTimeout / ctx.setInterval / ctx.sleep (declare inject: ['timer']);
// ctx.tools.register({name, description, parameters, execute}) to give yourself a new tool,
// callable from your next step, where parameters is a JSON Schema object and execute(args)
// returns JSON data; ctx.tools.schemas(), ctx.tools.get(name) and ctx.tools.owner(name)
// read the registry (cordis_inspect what:"api" name:"tools" shows their shapes).
// Framework internals (root, fiber, plugin, extend, emit, …) are not there.
//
// Globals: console (to the host log, tagged with the mount id), btoa/atob, TextEncoder,
// TextDecoder. There is no Node.js: require, setTimeout, setInterval, setImmediate,
// clearTimeout, clearInterval and fetch throw and name the alternative (services on ctx,
// inject: ['timer']); process and Buffer are undefined. Write plain JavaScript, not
// TypeScript. Evaluation, apply and every later call into your code (listeners, tool
// bodies, timers) are time-bounded; a runaway call is interrupted and reported.
//
// Trust: the sandbox withholds everything its ctx does not grant, but what it grants is
// real — an injected service acts with the host's privileges and a mount can affect every
// session in this process. Mount deliberately, as you would run a shell command.
var Mount = kit.NewTool[MountInput, MountOutput]("cordis_mount")

// Unmount removes a temporary plugin created by cordis_mount and returns only after
// everything it registered is gone: its listeners, tools, services, timers and effects,
// with no listener of it still running. It accepts only ids returned by cordis_mount in
// this process ("dyn-N"); list them with cordis_inspect what:"temporary".
var Unmount = kit.NewTool[UnmountInput, UnmountOutput]("cordis_unmount")

// Names returns the names of the three tools, in the order package toolset registers
// them. Package tooldecl's list of control tools reads it: a tool declared here joins that
// list here, beside its declaration. The slice is the caller's.
func Names() []string { return []string{Inspect.Name(), Mount.Name(), Unmount.Name()} }

// Section names one part of the cordis_inspect report.
type Section string

// The report sections, in report order.
const (
	SectionServices  Section = "services"
	SectionPlugins   Section = "plugins"
	SectionTools     Section = "tools"
	SectionTemporary Section = "temporary"
	SectionAPI       Section = "api"
	SectionEvents    Section = "events"
)

// InspectInput is the input of cordis_inspect.
type InspectInput struct {
	// Limit the report to one section. Omit for all sections.
	What Section `json:"what,omitempty"`
	// Exact service key or event name whose full documentation to include; valid only
	// with what "api" or "events".
	Name string `json:"name,omitempty"`
}

// MountInput is the input of cordis_mount.
type MountInput struct {
	// JavaScript body returning a temporary plugin; evaluated now and saved nowhere.
	Code string `json:"code"`
}

// State is a plugin's lifecycle state.
type State string

// The states a plugin can be in.
const (
	StatePending   State = "pending"
	StateLoading   State = "loading"
	StateActive    State = "active"
	StateFailed    State = "failed"
	StateDisposed  State = "disposed"
	StateUnloading State = "unloading"
)

// MountOutput is the result of cordis_mount.
type MountOutput struct {
	// The temporary plugin's id, for cordis_unmount.
	ID string `json:"id"`
	// The plugin's name: its name property, or <anonymous>.
	PluginName string `json:"pluginName"`
	// The plugin's state: active when it is running, pending while it waits for services.
	State State `json:"state"`
	// Services the plugin provides.
	Provides []string `json:"provides"`
	// Injected services that do not exist yet; the plugin activates when they do.
	WaitingFor []string `json:"waitingFor"`
}

// UnmountInput is the input of cordis_unmount.
type UnmountInput struct {
	// The temporary plugin id returned by cordis_mount (for example "dyn-1"); valid only in
	// this process, and invalid after unmount or restart.
	ID string `json:"id"`
}

// UnmountOutput is the result of cordis_unmount.
type UnmountOutput struct {
	// The id that was unmounted.
	ID string `json:"id"`
	// The unmounted plugin's name.
	PluginName string `json:"pluginName"`
}

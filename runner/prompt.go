package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/cordiskit/cordiskit/runner/inspect"
)

// PromptConfig is what the system-prompt section says about one runtime's runner.
type PromptConfig struct {
	// Durable is true when the Store keeps definitions and grants across restarts (any
	// Store but NewMemoryStore's).
	Durable bool
	// ApproveHostHalves mirrors Options.ApproveHostHalves.
	ApproveHostHalves bool
	// ApprovalTimeout and InspectQueryTimeout are the deadlines the model is told about;
	// zero means the defaults.
	ApprovalTimeout, InspectQueryTimeout time.Duration
}

// PromptSection returns the runner's system-prompt section (docs/dynamic-plugins.md,
// "References and the system prompt") for r's options and Store: the text a runtime adds
// to the system prompt of every session that has the seven tools.
func (r *Runner) PromptSection() string {
	_, mem := r.store.(*memoryStore)
	return PromptSection(PromptConfig{Durable: !mem, ApproveHostHalves: r.opts.ApproveHostHalves,
		ApprovalTimeout: r.opts.ApprovalTimeout, InspectQueryTimeout: r.opts.InspectQueryTimeout})
}

// PromptSection returns the system-prompt section for the seven dynamic-plugin tools: what
// Plugins and Packages are, the workflow, what each run status means and what to do about
// it, ids and versions, @pluginId mentions, and the rules for host and client code: every
// service is declared in inject (ctx.get needs it too), host halves are time-bounded, and
// every wait has a deadline.
func PromptSection(c PromptConfig) string {
	if c.ApprovalTimeout <= 0 {
		c.ApprovalTimeout = DefaultApprovalTimeout
	}
	if c.InspectQueryTimeout <= 0 {
		c.InspectQueryTimeout = inspect.DefaultQueryTimeout
	}
	storage := "Plugins and Packages live only in this process's memory: a restart loses them all."
	if c.Durable {
		storage = "Plugin and Package definitions and approvals are stored and survive a restart; cordis_inspect_self shows what runs after one."
	}
	gate := "A Package with a client half (code.client) needs the user's approval in the panel before it runs; a host-only Package runs inside cordis_run."
	if c.ApproveHostHalves {
		gate = "Every Package the user has not approved, host-only or not, needs the user's approval in the panel before it runs."
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("## Dynamic plugins (cordis)")
	p("")
	p("You can extend this runtime with dynamic Plugins that you write in JavaScript. A Plugin (id such as clock-1) belongs to this session and holds immutable Packages (pkg-N), each a version with a host half (runs in the host process), a client half (runs in the user's panel page), or both. %s The sandbox withholds everything its ctx does not grant, but what it grants is real: an injected service acts with the host's privileges. It is not a security boundary.", storage)
	p("")
	p("Use a dynamic Plugin only when a runtime extension is what the user's request needs; if it is unclear, ask at most one concise question.")
	p("")
	p("Workflow: cordis_inspect_list (the inspect providers) → cordis_inspect_query (the services, events, builtins and client slots you will use; never guess a name, method or field) → cordis_inspect_self (your Plugins, their runs and errors) → cordis_define → cordis_run → cordis_stop or cordis_undefine.")
	p("")
	p("- cordis_define records a Package and runs nothing.")
	p("- %s", gate)
	p("- awaiting-approval: the user decides. Do not wait, poll or re-request; the outcome arrives as a message. An unanswered request expires after %s, and you are told.", spellDuration(c.ApprovalTimeout))
	p("- starting: not success yet. Wait for the message that reports the outcome.")
	p("- rejected: the user declined. Do not request it again unless the user asks.")
	p("- failed: read the error (cordis_inspect_self), fix it with a new Package of the same Plugin and run that; do not create a new Plugin for a fix.")
	p("- A client inspect query waits for the panel page at most %s; if it expires, the panel is not open: ask the user to open it, or continue without it.", spellDuration(c.InspectQueryTimeout))
	p("")
	p("Ids and versions: cordis_run mode \"run\" starts a Plugin's first Package, or restarts, retries or rolls back to its current one; mode \"update\" switches to another Package. An update or a restart keeps the old run until the new host half has started, so a failed one leaves the old run running; where the old run provides a service or a tool name the new one registers too, it is stopped first and a failure leaves nothing running (the error says which): roll back with mode \"run\" on the current Package. One approval (✓) covers one Package; approval of future versions (✓✓) covers every later Package of the Plugin. Approvals survive failures, and the user can revoke them.")
	p("")
	p("When the user mentions @pluginId (such as @clock-1), a <cordis_dynamic_plugin_context> block follows with that Plugin's state: change that exact Plugin as the block says. If it says the Plugin is unavailable, tell the user; do not silently create a replacement.")
	p("")
	p("Code rules:")
	p("- code.host and code.client are each the body of an async function that returns a plugin: (ctx) => {…} or { name, inject: [...], apply(ctx) {…} }.")
	p("- Plain JavaScript only: no TypeScript, JSX or imports. In the client half, build UI with React.createElement.")
	p("- Declare every service you use in inject and reach it as ctx.<name> (ctx.get(name) needs it in inject too); the plugin waits until those services run.")
	p("- Every side effect belongs to the plugin: listeners (ctx.on), tools (ctx.tools.register), timers (inject: ['timer'], ctx.setTimeout), cleanup (ctx.effect), so that stopping it removes everything. There are no Node.js APIs (require, setTimeout, fetch throw and name the alternative).")
	p("- Never serialise live objects (services, ctx, functions): pass plain JSON data.")
	p("- Host code is time-bounded: a long or endless loop is interrupted and reported.")
	p("- The client half calls the host half with host.call(method, args), answered by harness.handle(method, fn) in the host half; arguments and results are JSON only. UI goes into the slots the client Slots provider lists (cordis_inspect_query platform \"client\").")
	return b.String()
}

// spellDuration writes a deadline as a person would: "10 minutes", "30 seconds".
func spellDuration(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}} {
		if d >= u.d && d%u.d == 0 {
			if n := d / u.d; n != 1 {
				return fmt.Sprintf("%d %ss", n, u.name)
			}
			return "1 " + u.name
		}
	}
	return d.String()
}

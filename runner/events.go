package runner

import (
	"encoding/json"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// RequestRun announces a model-driven run of a gated Package (one with a client half, or
// any Package when Options.ApproveHostHalves is set) to the pages: each shows an approval
// affordance, or starts the run at once when no approval is needed. Pages answer through
// the Runner's page verbs; the Ticket authorises starting or declining this request.
var RequestRun = kit.NewEvent[RequestRunEvent]("cordis/request-run")

// RequestRunEvent is the payload of RequestRun.
type RequestRunEvent struct {
	RequestID        string // "approval-3"
	Ticket           string // unguessable; pass it back to runHostHalf or a decline
	Session          string // the owning session
	PluginID         string
	PackageID        string
	Mode             dynamic.Mode
	Name             string
	Purpose          string
	RequiresApproval bool
	HasClientHalf    bool
}

// RequestRunResolved reports that a pending run request ended, and how: approved or
// completed (it runs), rejected (the user declined), failed, cancelled (stop or undefine)
// or expired (nobody answered before the deadline).
var RequestRunResolved = kit.NewEvent[RequestRunResolvedEvent]("cordis/request-run-resolved")

// RequestRunResolvedEvent is the payload of RequestRunResolved.
type RequestRunResolvedEvent struct {
	RequestID string
	PluginID  string
	Outcome   Outcome
}

// Outcome is how a run request ended. It says what happened: a failure is never reported
// as completed.
type Outcome string

// Outcomes of a run request.
const (
	OutcomeApproved  Outcome = "approved"  // approved by a person, and it runs
	OutcomeCompleted Outcome = "completed" // needed no approval, and it runs
	OutcomeRejected  Outcome = "rejected"  // a person declined
	OutcomeFailed    Outcome = "failed"    // a half failed to start
	OutcomeCancelled Outcome = "cancelled" // stop or undefine cancelled it
	OutcomeExpired   Outcome = "expired"   // nobody answered before the deadline
)

// DynamicPackage reports that a new physical run is live in the host: its host half
// started (or, for a client-only Package, at once), before any page loaded its client
// half. Attaching to a live run does not fire it.
var DynamicPackage = kit.NewEvent[DynamicPackageEvent]("cordis/dynamic-package")

// DynamicPackageEvent is the payload of DynamicPackage.
type DynamicPackageEvent struct {
	PluginID    string
	PackageID   string
	PluginRunID string
	Name        string
}

// DynamicRetract reports that a run was torn down (stop, undefine, a replacing run, a
// failure of the page that started it, an expired client wait): pages running exactly
// that run unload its client half. It does not fire when the whole runner is disposed.
var DynamicRetract = kit.NewEvent[DynamicRetractEvent]("cordis/dynamic-retract")

// DynamicRetractEvent is the payload of DynamicRetract.
type DynamicRetractEvent struct {
	PluginID    string
	PackageID   string
	PluginRunID string
}

// DefinitionChanged reports that a session's definitions changed: a define recorded a new
// Package (on a new Plugin or an existing one), or a Plugin was undefined (by the model or
// from a panel). Pages read their inventory again instead of polling for it; a define
// starts nothing, so no other event would tell them. On a Store that several processes
// share (a ChangeNotifier) the Runner emits it for the other processes' changes too,
// their runs, stops and grants as Updated, once its Store confirms the session.
var DefinitionChanged = kit.NewEvent[DefinitionChangedEvent]("cordis/definition-changed")

// DefinitionChangedEvent is the payload of DefinitionChanged.
type DefinitionChangedEvent struct {
	Session string // the owning session
	// PluginID is the Plugin; "" for an Updated that names none (any of the session's
	// Plugins may have changed).
	PluginID  string
	PackageID string // the new Package of a define; "" otherwise
	Change    DefinitionChange
}

// DefinitionChange is what happened to a definition.
type DefinitionChange string

// Definition changes.
const (
	Defined   DefinitionChange = "defined"   // a new Package was recorded
	Undefined DefinitionChange = "undefined" // the Plugin and its Packages were removed
	Updated   DefinitionChange = "updated"   // another process changed the Plugin (a run, a stop, a grant) or may have: read it again
)

// ModelMessage carries a message from the runner to the model of the session that owns a
// Plugin (docs/dynamic-plugins.md, "Messages to the model"): an outcome that arrives after
// cordis_run returned, a runtime failure, or what a person did in the panel. An agent loop
// consumes it; a steer wakes an idle session, an inject is context for its next step.
// Messages for a session that is not connected are kept (Runner.Connect, Runner.Messages)
// and delivered when it connects, or by an MCP server in its next tool result
// (Runner.TakeMessages).
var ModelMessage = kit.NewEvent[ModelMessageEvent]("cordis/model-message")

// ModelMessageEvent is the payload of ModelMessage.
type ModelMessageEvent struct {
	Session  string
	Kind     dynamic.MessageKind
	PluginID string
	Text     string
}

// ToolCall announces a call of cordis_define, cordis_run, cordis_stop or cordis_undefine
// through the tools the runner registers in the tools registry: once when it starts (no Result,
// Error or Interrupted yet) and once when it answers, with the same Seq. It is what a
// person watching the agent reads as "what the model did" (the panel's activity list)
// without the runtime handing over its transcript. Like every cordis/ event it is the
// host's own: model-written code is not shown it and cannot listen to it. The runner
// builds the payload only while something listens.
var ToolCall = kit.NewEvent[ToolCallEvent]("cordis/tool-call")

// ToolCallEvent is the payload of ToolCall: the call as a transcript keeps it.
type ToolCallEvent struct {
	Session string // the calling session ("" when the call carried none)
	Tool    string // "cordis_define", "cordis_run", "cordis_stop", "cordis_undefine"
	Seq     int64  // per process, in the order calls start; the answer repeats it
	Args    string // the arguments as the model sent them
	// Result is the structured result of a success (JSON null for a success with no
	// value); nil while the call runs and when it failed.
	Result json.RawMessage
	Error  string // the tool error's text; "" unless it failed
	// Interrupted: the call's context ended (the turn was cancelled) before it answered.
	Interrupted bool
}

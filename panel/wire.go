package panel

import (
	"encoding/json"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The page wire in Go: what a page and the handler exchange (package doc, "Verbs" and
// "Events"). A verb's arguments are the runner's argument struct where the runner answers
// it (page.RunHostHalfArgs, …) and a type below where the handler adds to it; every
// event's data is a type below, named after its event. The handler writes these types and
// the Client reads them: the names on the wire are their JSON tags.

// An Answer is every verb's answer: {"ok":true,"value":…} or
// {"ok":false,"error":{"code":…,"message":…}}.
type Answer struct {
	OK    bool            `json:"ok"`              // true: Value is the answer; false: Error says why not
	Value json.RawMessage `json:"value,omitempty"` // the verb's answer; present (null at least) when OK
	Error *Error          `json:"error,omitempty"` // why not, when not OK
}

// An Error is a request the handler refused. Its Code is a page.Reason
// ("plugin-missing", …) or a page.InvokeCode ("stale-run", …) for a refusal of the
// runner, answered with HTTP 200, or a code of the transport with its own HTTP status:
// bad-request (400 or 415), unauthorized or bad-token (401), not-loopback or
// foreign-origin (403), unknown-verb or not-found (404), method-not-allowed (405),
// body-timeout (408), too-large (413), unavailable or closed (503), internal (500).
type Error struct {
	Code    string `json:"code"`    // a page.Reason, a page.InvokeCode, or a code of the transport
	Message string `json:"message"` // says what to do
	// Status is the answer's HTTP status (200 for a refusal of the runner). The handler
	// does not send it in the JSON; the Client sets it from the response.
	Status int `json:"-"`
}

func (e *Error) Error() string { return "panel: " + e.Code + ": " + e.Message }

// HostHalfAnswer is the answer of runHostHalf: the runner's result and, when it refused
// an answer to a run request that had already ended (another page answered first, the
// model withdrew it, it expired), how that request ended, so a late page can say what
// happened instead of failing.
type HostHalfAnswer struct {
	page.HostHalfResult
	Settled runner.Outcome `json:"settled,omitempty"` // how the run request had already ended, when this answer came too late
}

// AcceptedAnswer is the answer of resolveRequestRun: whether the answer counted and,
// when it did not because the request had already ended, how it ended (Settled).
type AcceptedAnswer struct {
	page.Accepted
	Settled runner.Outcome `json:"settled,omitempty"` // how the run request had already ended, when this answer came too late
}

// RenderFailureArgs are the arguments of reportRenderFailure: the live run, with its
// capability, and how its client UI crashed.
type RenderFailureArgs struct {
	page.ReportArgs
	Failure dynamic.RenderFailure `json:"failure"` // what crashed, and whether the UI gave up its slot
}

// GuardFailureArgs are the arguments of reportClientGuardFailure: the live run, with its
// capability, and what the page's client guard refused.
type GuardFailureArgs struct {
	page.ReportArgs
	Failure GuardFailure `json:"failure"` // what the guard refused
}

// GuardFailure is what the page's client guard refused of a client half.
type GuardFailure struct {
	Message string `json:"message"`         // what the guard refused, and why
	Stack   string `json:"stack,omitempty"` // the JavaScript stack, when known
}

// A Payload is the data of one event of the stream; its type says which event, and
// EventName gives the event's name ("cordis/request-run").
type Payload interface {
	EventName() string
}

// payloads lists every event the handler sends, one value of each data type: the names
// the Client decodes.
var payloads = []Payload{
	Connected{}, Reset{}, RequestRun{}, RequestRunResolved{}, DynamicPackage{}, DynamicRetract{},
	DefinitionChanged{}, InspectQuery{}, InspectQueryResolved{}, Activity{},
}

// Connected starts every stream (cordis/connected). Page is the id the runner gave this
// connection (inspect.Registry.ConnectPage) for the page's client inspect providers: the page
// passes it to syncInspectManifest and resolveInspectQuery, and it expires when the
// stream ends. Resumed says that the events after the request's Last-Event-ID follow;
// when false the page reads its inventory again, and the pending run requests follow.
type Connected struct {
	Resumed bool   `json:"resumed"` // the events after Last-Event-ID follow; false: read the inventory again
	Page    string `json:"page"`    // this connection's page id, for syncInspectManifest and resolveInspectQuery
}

// Reset (cordis/reset) tells a stream that fell behind further than the handler keeps
// events to read its inventory again; the pending run requests follow, then new events.
type Reset struct {
	Reason string `json:"reason"` // "behind"
}

// RequestRun (cordis/request-run) asks the pages to start a run of a Package, or to ask a
// person's approval for it first (RequiresApproval). Ticket authorises starting
// (runHostHalf) or declining (resolveRequestRun) this request; only pages that may see
// the request's session receive it.
type RequestRun struct {
	RequestID        string       `json:"requestId"`        // "approval-3"
	Ticket           string       `json:"ticket"`           // authorises starting or declining this request
	Session          string       `json:"session"`          // the Plugin's session
	PluginID         string       `json:"pluginId"`         // the Plugin
	PackageID        string       `json:"packageId"`        // the Package to run
	Mode             dynamic.Mode `json:"mode"`             // as cordis_run
	Name             string       `json:"name"`             // the Package's name
	Purpose          string       `json:"purpose"`          // the Package's purpose, for the person
	RequiresApproval bool         `json:"requiresApproval"` // a person must approve it; else the first page starts it at once
	HasClientHalf    bool         `json:"hasClientHalf"`    // the Package has a client half to load
}

// RequestRunResolved (cordis/request-run-resolved) says a run request ended, and how:
// pages close its approval.
type RequestRunResolved struct {
	RequestID string         `json:"requestId"` // the run request
	PluginID  string         `json:"pluginId"`  // its Plugin
	Outcome   runner.Outcome `json:"outcome"`   // how it ended
}

// DynamicPackage (cordis/dynamic-package) says a new run is live in the host: a page that
// shows the Plugin may load its client half (getClientCode).
type DynamicPackage struct {
	PluginID    string `json:"pluginId"`       // the Plugin
	PackageID   string `json:"packageId"`      // the Package that runs
	PluginRunID string `json:"pluginRunId"`    // the new run
	Name        string `json:"name,omitempty"` // the Package's name
}

// DynamicRetract (cordis/dynamic-retract) says a run was torn down: pages running exactly
// that run unload its client half.
type DynamicRetract struct {
	PluginID    string `json:"pluginId"`    // the Plugin
	PackageID   string `json:"packageId"`   // the Package that ran
	PluginRunID string `json:"pluginRunId"` // the run torn down
}

// DefinitionChanged (cordis/definition-changed) says a session defined a Package or
// removed a Plugin, or, on a store several processes share, that another process changed
// one (updated: a run, a stop, a grant): pages read their inventory again. A define
// starts nothing, so no other event would tell them.
type DefinitionChanged struct {
	Session   string                  `json:"session"`             // the Plugin's session
	PluginID  string                  `json:"pluginId"`            // the Plugin; "" for an update that names none (any of the session's)
	PackageID string                  `json:"packageId,omitempty"` // the new Package of a define
	Change    runner.DefinitionChange `json:"change"`              // defined, undefined or updated
}

// InspectQuery (cordis/inspect-query) asks the pages that published Provider.Method for
// the session to answer a client inspect query once (resolveInspectQuery).
type InspectQuery struct {
	RequestID string          `json:"requestId"`          // "inspect-4"
	Session   string          `json:"session,omitempty"`  // the session whose model asked
	Provider  string          `json:"provider,omitempty"` // the client provider
	Method    string          `json:"method,omitempty"`   // its method
	Input     json.RawMessage `json:"input,omitempty"`    // the query's input, valid against the method's inputSchema
}

// InspectQueryResolved (cordis/inspect-query-resolved) says a client inspect query was
// settled: pages drop it.
type InspectQueryResolved struct {
	RequestID string `json:"requestId"` // the query settled
}

// EventName is "cordis/connected".
func (Connected) EventName() string { return "cordis/connected" }

// EventName is "cordis/reset".
func (Reset) EventName() string { return "cordis/reset" }

// EventName is "cordis/request-run".
func (RequestRun) EventName() string { return "cordis/request-run" }

// EventName is "cordis/request-run-resolved".
func (RequestRunResolved) EventName() string { return "cordis/request-run-resolved" }

// EventName is "cordis/dynamic-package".
func (DynamicPackage) EventName() string { return "cordis/dynamic-package" }

// EventName is "cordis/dynamic-retract".
func (DynamicRetract) EventName() string { return "cordis/dynamic-retract" }

// EventName is "cordis/definition-changed".
func (DefinitionChanged) EventName() string { return "cordis/definition-changed" }

// EventName is "cordis/inspect-query".
func (InspectQuery) EventName() string { return "cordis/inspect-query" }

// EventName is "cordis/inspect-query-resolved".
func (InspectQueryResolved) EventName() string { return "cordis/inspect-query-resolved" }

// EventName is "cordis/activity".
func (Activity) EventName() string { return "cordis/activity" }

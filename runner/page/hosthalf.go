package page

import "github.com/cordiskit/cordiskit/tooldecl/dynamic"

// The verbs' argument structs carry the wire's argument names as JSON tags, so a server
// decodes a POST body straight into them.

// RunHostHalfArgs are the arguments of runHostHalf.
type RunHostHalfArgs struct {
	Session               string       `json:"session"`               // the Plugin's session (on a session's page, its own)
	PluginID              string       `json:"pluginId"`              // the Plugin
	PackageID             string       `json:"packageId"`             // the Package to run
	Mode                  dynamic.Mode `json:"mode"`                  // as cordis_run: run or update
	RequestID             string       `json:"requestId,omitempty"`   // "" (wire null): a direct gesture in the panel
	ApproveFutureVersions bool         `json:"approveFutureVersions"` // also grant the Plugin's later Packages (when it needs approval)
	Ticket                string       `json:"ticket,omitempty"`      // the request's ticket, from cordis/request-run
}

// HostHalfResult is the answer of runHostHalf. Token is set only for the page that
// started the run (StartedHere); a page that attached gets the capability but cannot
// settle the run.
type HostHalfResult struct {
	OK          bool     `json:"ok"`                    // the host half started, or this page attached to it
	PluginID    string   `json:"pluginId,omitempty"`    // the Plugin
	PackageID   string   `json:"packageId,omitempty"`   // the Package that runs
	PluginRunID string   `json:"pluginRunId,omitempty"` // the run
	WaitingFor  []string `json:"waitingFor,omitempty"`  // services the host half waits for
	StartedHere bool     `json:"startedHere"`           // this page started the run: it holds Token and must settle it
	Token       string   `json:"token,omitempty"`       // settles the run; only for the page that started it
	Capability  string   `json:"capability,omitempty"`  // the run's capability: invoke and reports
	Reason      Reason   `json:"reason,omitempty"`      // why not, when not OK
	Message     string   `json:"message,omitempty"`     // what happened and what to do, when not OK
	Stack       string   `json:"stack,omitempty"`       // the JavaScript stack of a failed host half
}

// HostHalfFailed is the answer of runHostHalf that refuses with err: its Reason, message
// and, for a failed host half, its stack.
func HostHalfFailed(err error) HostHalfResult {
	res := HostHalfResult{Reason: ReasonOf(err), Message: err.Error()}
	if e, ok := err.(*Error); ok {
		res.Stack = e.Stack
	}
	return res
}

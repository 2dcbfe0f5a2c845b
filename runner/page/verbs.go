package page

import "encoding/json"

// The arguments of the other verbs, and getClientCode's answer: what a page sends, with
// the wire's names as JSON tags. Answers that carry the runner's stored records (the
// inventory, reviewPackage's Review, revokeGrant's Grants) are the runner's types.

// ClientCodeArgs are the arguments of getClientCode.
type ClientCodeArgs struct {
	Session     string `json:"session"`     // the Plugin's session
	PluginID    string `json:"pluginId"`    // the Plugin
	PluginRunID string `json:"pluginRunId"` // the live run whose client half to load
}

// ClientCode is the client half of a live run, and the capability that binds the page's
// invokes and reports to that run. It is the only way source code reaches a page.
type ClientCode struct {
	Code        string `json:"code"`        // the client half: the body of an async function that returns a plugin
	Name        string `json:"name"`        // the Package's name
	PluginID    string `json:"pluginId"`    // the Plugin
	PackageID   string `json:"packageId"`   // the Package
	PluginRunID string `json:"pluginRunId"` // the live run
	Capability  string `json:"capability"`  // the run's capability: invoke and reports
}

// Resolution is a page's answer to a run: success (with the client half's missing
// services), or a failure with its reason. Token is what runHostHalf returned to the page
// that started the run; a decline needs none (see ResolveArgs.Ticket).
type Resolution struct {
	OK          bool     `json:"ok"`                    // the client half loaded (or the host half, for a host-only run)
	Reason      Reason   `json:"reason,omitempty"`      // rejected, host-half-failed or client-half-failed
	PluginRunID string   `json:"pluginRunId,omitempty"` // the run this answers for
	Token       string   `json:"token,omitempty"`       // what runHostHalf returned to this page; not needed to decline
	WaitingFor  []string `json:"waitingFor,omitempty"`  // services the client half waits for
	Message     string   `json:"message,omitempty"`     // what failed, when not OK
	Stack       string   `json:"stack,omitempty"`       // the JavaScript stack of the failure
}

// ResolveArgs are the arguments of resolveRequestRun.
type ResolveArgs struct {
	RequestID  string     `json:"requestId"`        // the run request, "approval-N"
	Ticket     string     `json:"ticket,omitempty"` // needed to decline
	Resolution Resolution `json:"resolution"`       // the page's answer
}

// SettleUserRunArgs are the arguments of settleUserRun.
type SettleUserRunArgs struct {
	Session    string     `json:"session"`    // the Plugin's session
	PluginID   string     `json:"pluginId"`   // the Plugin of the direct run
	Resolution Resolution `json:"resolution"` // the starting page's answer, with its token
}

// PanelPluginArgs name a Plugin for stopFromPanel and undefineFromPanel.
type PanelPluginArgs struct {
	Session  string `json:"session"`  // the Plugin's session
	PluginID string `json:"pluginId"` // the Plugin
}

// RevokeArgs are the arguments of revokeGrant: a per-Package grant (PackageID) and/or the
// grant for future versions (Future).
type RevokeArgs struct {
	Session   string `json:"session"`             // the Plugin's session
	PluginID  string `json:"pluginId"`            // the Plugin
	PackageID string `json:"packageId,omitempty"` // a Package whose grant to revoke
	Future    bool   `json:"future,omitempty"`    // revoke the grant for future versions
}

// ReportArgs identify the live run a page reports on; Capability is the run's (from
// getClientCode), so only a page that loaded the run can report on it.
type ReportArgs struct {
	Session     string `json:"session"`     // the Plugin's session
	PluginID    string `json:"pluginId"`    // the Plugin
	PluginRunID string `json:"pluginRunId"` // the live run reported on
	Capability  string `json:"capability"`  // the run's capability, from getClientCode
}

// ReviewArgs name the Package a person is asked to approve: Package PackageID of Plugin
// PluginID, owned by session Session.
type ReviewArgs struct {
	Session   string `json:"session"`   // the Plugin's session
	PluginID  string `json:"pluginId"`  // the Plugin
	PackageID string `json:"packageId"` // the Package to review
}

// InvokeArgs are the arguments of invoke: a handler of a live run, called with the run's
// capability (from runHostHalf or getClientCode) and its JSON arguments.
type InvokeArgs struct {
	PluginID    string          `json:"pluginId"`    // the Plugin
	PluginRunID string          `json:"pluginRunId"` // the live run the page loaded
	Capability  string          `json:"capability"`  // the run's capability, from runHostHalf or getClientCode
	Method      string          `json:"method"`      // the handler, as the host half registered it with harness.handle
	Args        json.RawMessage `json:"args"`        // the JSON argument; absent or empty means null
}

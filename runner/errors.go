package runner

import (
	"github.com/cordiskit/cordiskit/runner/page"
)

// The refusal vocabulary is the page protocol's (runner/page): one list of reasons for the
// runner's verbs, its tools and its inspect registry. The names below are aliases, so the
// runner's code and its callers read as before; the values and their meanings are
// page's.

// Reason says why a verb refused; models and pages branch on it (page.Reason).
type Reason = page.Reason

// Refusal reasons (page.Reason's list).
const (
	ReasonNoSession          = page.ReasonNoSession
	ReasonInvalid            = page.ReasonInvalid
	ReasonPluginMissing      = page.ReasonPluginMissing
	ReasonPackageMissing     = page.ReasonPackageMissing
	ReasonInvalidMode        = page.ReasonInvalidMode
	ReasonTransitionInFlight = page.ReasonTransitionInFlight
	ReasonCancelled          = page.ReasonCancelled
	ReasonHostHalfFailed     = page.ReasonHostHalfFailed
	ReasonClientHalfFailed   = page.ReasonClientHalfFailed
	ReasonRejected           = page.ReasonRejected
	ReasonNotRunning         = page.ReasonNotRunning
	ReasonNotAuthorised      = page.ReasonNotAuthorised
	ReasonClosed             = page.ReasonClosed
	ReasonLimit              = page.ReasonLimit
	ReasonProviderError      = page.ReasonProviderError
	ReasonExpired            = page.ReasonExpired
)

// An Error is a refusal of a runner verb (page.Error): a Reason and a message that says
// what went wrong and the exact next step.
type Error = page.Error

func refuse(r Reason, format string, args ...any) *Error { return page.Refuse(r, format, args...) }

// ReasonOf returns the Reason of a refusal (*Error) in err's chain, or "".
func ReasonOf(err error) Reason { return page.ReasonOf(err) }

// missing is the one message for a Plugin that is absent, whoever owns it, so nothing
// leaks about other sessions' Plugins.
func missing(id string) *Error {
	return refuse(ReasonPluginMissing, "no dynamic plugin %q in this session — it may have been removed (cordis_undefine), lost on a restart, or belong to another session. List yours with cordis_inspect_self; define a new one with cordis_define plugin:{kind:\"new\", idPrefix}", id)
}

// InvokeCode is why an Invoke failed (page.InvokeCode), in the order the checks run.
type InvokeCode = page.InvokeCode

// Invoke failure codes (page.InvokeCode's list).
const (
	InvokePluginNotRunning = page.InvokePluginNotRunning
	InvokeStaleRun         = page.InvokeStaleRun
	InvokeForbidden        = page.InvokeForbidden
	InvokeMethodNotFound   = page.InvokeMethodNotFound
	InvokeHandlerError     = page.InvokeHandlerError
	InvokeBadArgs          = page.InvokeBadArgs
)

// An InvokeError is a failed Invoke (page.InvokeError): a Code and a teaching message.
type InvokeError = page.InvokeError

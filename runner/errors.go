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

// InvokeCode is why an Invoke failed, in the order the checks run.
type InvokeCode string

// Invoke failure codes.
const (
	// The Plugin has no live run.
	InvokePluginNotRunning InvokeCode = "plugin-not-running"
	// The run named is not the live run (reload the client half).
	InvokeStaleRun InvokeCode = "stale-run"
	// The capability is not the run's.
	InvokeForbidden InvokeCode = "invalid-capability"
	// The run has no host half, or registered no such method.
	InvokeMethodNotFound InvokeCode = "method-not-found"
	// The handler threw or rejected; the run keeps running.
	InvokeHandlerError InvokeCode = "handler-error"
	// The arguments are not JSON (checked before the method).
	InvokeBadArgs InvokeCode = "invalid-args"
)

// An InvokeError is a failed Invoke: a Code and a teaching message (and the handler's
// stack for handler-error).
type InvokeError struct {
	Code    InvokeCode
	Message string
	Stack   string
	Err     error
}

func (e *InvokeError) Error() string { return e.Message }
func (e *InvokeError) Unwrap() error { return e.Err }

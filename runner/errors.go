package runner

import (
	"errors"
	"fmt"
)

// Reason says why a verb refused; models and pages branch on it.
type Reason string

// Refusal reasons.
const (
	// The call carries no session: a wiring fault of the runtime.
	ReasonNoSession Reason = "no-session"
	// An argument is missing, blank, too long or does not parse.
	ReasonInvalid Reason = "invalid-input"
	// No such Plugin in this session (removed, lost, or another session's).
	ReasonPluginMissing Reason = "plugin-missing"
	// The Plugin has no such Package.
	ReasonPackageMissing Reason = "package-missing"
	// The mode is not run or update, or not the one this Package needs.
	ReasonInvalidMode Reason = "invalid-mode"
	// Another start or run request of the Plugin is under way.
	ReasonTransitionInFlight Reason = "transition-in-flight"
	// A stop, an undefine or the caller's context ended it first.
	ReasonCancelled Reason = "cancelled"
	// The host half failed to evaluate or apply.
	ReasonHostHalfFailed Reason = "host-half-failed"
	// The page reports the client half failed to load or apply.
	ReasonClientHalfFailed Reason = "client-half-failed"
	// A person declined the run (a page's answer).
	ReasonRejected Reason = "rejected"
	// The Plugin has no live run, or not the run named.
	ReasonNotRunning Reason = "not-running"
	// The ticket, token or request does not authorise the page.
	ReasonNotAuthorised Reason = "not-authorised"
	// The Runner was disposed.
	ReasonClosed Reason = "closed"
	// ReasonLimit refuses what would take a session or a run past one of its caps
	// (Options.MaxPluginsPerSession and the others of the package doc's Caps).
	ReasonLimit Reason = "limit-reached"
)

// An Error is a refusal of a runner verb: a Reason and a message that says what went wrong
// and the exact next step. Stack is the JavaScript stack of a failed half, when known.
type Error struct {
	Reason  Reason
	Message string
	Stack   string
	Err     error // the underlying error, if any
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

func refuse(r Reason, format string, args ...any) *Error {
	return &Error{Reason: r, Message: fmt.Sprintf(format, args...)}
}

// ReasonOf returns the Reason of a runner *Error in err's chain, or "".
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

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

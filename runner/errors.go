package runner

import (
	"errors"
	"fmt"
)

// Reason says why a verb refused; models and pages branch on it.
type Reason string

// Refusal reasons.
const (
	ReasonNoSession          Reason = "no-session"
	ReasonInvalid            Reason = "invalid-input"
	ReasonPluginMissing      Reason = "plugin-missing"
	ReasonPackageMissing     Reason = "package-missing"
	ReasonInvalidMode        Reason = "invalid-mode"
	ReasonTransitionInFlight Reason = "transition-in-flight"
	ReasonCancelled          Reason = "cancelled"
	ReasonHostHalfFailed     Reason = "host-half-failed"
	ReasonClientHalfFailed   Reason = "client-half-failed"
	ReasonRejected           Reason = "rejected"
	ReasonNotRunning         Reason = "not-running"
	ReasonNotAuthorised      Reason = "not-authorised"
	ReasonClosed             Reason = "closed"
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
	InvokePluginNotRunning InvokeCode = "plugin-not-running"
	InvokeStaleRun         InvokeCode = "stale-run"
	InvokeForbidden        InvokeCode = "invalid-capability"
	InvokeMethodNotFound   InvokeCode = "method-not-found"
	InvokeHandlerError     InvokeCode = "handler-error"
	InvokeBadArgs          InvokeCode = "invalid-args"
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

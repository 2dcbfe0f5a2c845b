package page

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
	// (runner.Options.MaxPluginsPerSession and the others of the runner's Caps).
	ReasonLimit Reason = "limit-reached"
	// An inspect provider failed, or answered data its outputSchema rejects.
	ReasonProviderError Reason = "provider-error"
	// No page answered a client inspect query before its deadline.
	ReasonExpired Reason = "expired"
)

// An Error is a refusal of a verb: a Reason and a message that says what went wrong and
// the exact next step. Stack is the JavaScript stack of a failed half, when known.
type Error struct {
	Reason  Reason
	Message string
	Stack   string
	Err     error // the underlying error, if any
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Refuse returns the refusal r with a message formatted as fmt.Sprintf does.
func Refuse(r Reason, format string, args ...any) *Error {
	return &Error{Reason: r, Message: fmt.Sprintf(format, args...)}
}

// ReasonOf returns the Reason of an *Error in err's chain, or "".
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// Accepted is the answer of a verb that settles something a page was asked
// (resolveRequestRun, settleUserRun, resolveInspectQuery); Message says why an answer was
// refused, or how it counted.
type Accepted struct {
	Accepted bool   `json:"accepted"`          // the answer counted
	Message  string `json:"message,omitempty"` // why it did not
}

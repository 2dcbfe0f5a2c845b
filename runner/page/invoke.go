package page

// InvokeCode is why an invoke failed — the page verb, or the runner's Invoke for Go code —
// in the order the checks run.
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

// An InvokeError is a failed invoke: a Code and a teaching message (and the handler's
// stack for handler-error).
type InvokeError struct {
	Code    InvokeCode
	Message string
	Stack   string
	Err     error
}

func (e *InvokeError) Error() string { return e.Message }
func (e *InvokeError) Unwrap() error { return e.Err }

package kit

import "errors"

// Sentinel errors returned by the kit. Errors that carry more detail wrap one of these, so
// callers test with errors.Is.
var (
	// ErrInactive reports a registration on a fiber that is not loading or active
	// (disposed, unloading, failed or pending). Register from apply, or from code that
	// runs while the plugin is active.
	ErrInactive = errors.New("fiber is not active")

	// ErrDuplicate reports a second registration under a name that must be unique
	// (a service key or a tool name).
	ErrDuplicate = errors.New("already registered")

	// ErrNilContext reports a dispatch or registration through a nil *Context.
	ErrNilContext = errors.New("nil *kit.Context")

	// ErrSession reports a plugin started across sessions: a fiber of one session cannot
	// start a plugin of another.
	ErrSession = errors.New("plugin of another session")

	// ErrPanic wraps a panic recovered from plugin code (apply, a listener, a disposer).
	ErrPanic = errors.New("panic in plugin code")
)

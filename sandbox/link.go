package sandbox

import "github.com/cordiskit/cordiskit/sandbox/internal/link"

// init gives the binding contract, sandbox/bind, the realm operations it needs that this
// package does not export (see sandbox/internal/link).
func init() {
	link.Register(&link.Ops[Realm]{
		MaxBytes: func(r *Realm) int { return r.loop.limits.MaxBytes },
		Rethrow:  (*Realm).rethrow,
	})
}

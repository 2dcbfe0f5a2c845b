// Package link connects sandbox/bind to package sandbox for what the binding contract
// needs of a realm that sandbox does not export. Package sandbox registers the operations
// once, at its initialization ([Register]); bind reads them once, at its own ([Get]),
// which Go runs after sandbox's because bind imports sandbox. Nothing else imports link.
//
// The operations are generic over the realm type, R being sandbox.Realm, so that link
// sits below both packages without importing either.
package link

// Ops are the operations of a realm that only the binding contract uses.
type Ops[R any] struct {
	// MaxBytes is the realm's Limits.MaxBytes, read without copying its Limits: it is on
	// the path of every string argument.
	MaxBytes func(r *R) int
	// Rethrow panics again with x, recovered in the native function named method: a
	// JavaScript exception or goja's uncatchable error as it is, a Go panic as a
	// JavaScript Error naming the method.
	Rethrow func(r *R, method string, x any)
}

var ops any // *Ops[R]

// Register records the operations. Package sandbox calls it once, at initialization.
func Register[R any](o *Ops[R]) { ops = o }

// Get returns the operations Register recorded for R.
func Get[R any]() *Ops[R] {
	o, ok := ops.(*Ops[R])
	if !ok {
		panic("sandbox/internal/link: no operations registered for this realm type (package sandbox registers them at initialization)")
	}
	return o
}

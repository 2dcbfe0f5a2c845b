package sandbox

import (
	"context"

	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/cordiskit/cordiskit/sandbox/internal/engine"
	"github.com/cordiskit/cordiskit/sandbox/internal/link"
	"github.com/dop251/goja"
)

// init gives the binding contract, sandbox/bind, the realm operations it needs that this
// package does not export (see sandbox/internal/link).
func init() {
	link.Register(&link.Ops[Realm]{
		Runtime:     (*Realm).runtime,
		Lock:        func(r *Realm) *engine.Lock { return &r.engine.lock },
		MaxBytes:    func(r *Realm) int { return r.engine.limits.MaxBytes },
		Rethrow:     (*Realm).rethrow,
		Throw:       (*Realm).throw,
		Promise:     (*Realm).promise,
		DeliverEmit: (*Realm).deliverEmit,
		Budget:      func(r *Realm, b *conv.Budget) { *b = *newBudget(r) },
		JSON:        (*Realm).budgetJSON,
		FromAny:     anyValue,
		SeamCall: func(s any, ctx context.Context, i int, args func(r *Realm) []goja.Value, conv func(r *Realm, v goja.Value) error) error {
			return s.(*seam).call(ctx, i, args, conv)
		},
		SeamFail: func(s any, i int, err error) { s.(*seam).fail(i, err) },
		SeamDisposer: func(s any, r *Realm, v goja.Value, path string) func() {
			return s.(*seam).disposer(r, v, path)
		},
	})
}

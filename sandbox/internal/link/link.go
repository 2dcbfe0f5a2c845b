// Package link connects sandbox/bind to package sandbox for what the binding contract
// needs of a realm that sandbox does not export. Package sandbox registers the operations
// once, at its initialization ([Register]); bind reads them once, at its own ([Get]),
// which Go runs after sandbox's because bind imports sandbox. Nothing else imports link.
//
// The operations are generic over the realm type, R being sandbox.Realm, so that link
// sits below both packages without importing either. The types both packages name — a
// [SeamAdapter] in sandbox.Facade, the [SeamMethod]s it lists — are declared here, and bind
// re-exports them by alias, as protobuf's runtime/protoimpl does with internal/impl.
package link

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/cordiskit/cordiskit/sandbox/internal/engine"
	"github.com/dop251/goja"
)

// Ops are the operations of a realm that only the binding contract uses. Their contracts
// are those of the bind functions built on them.
type Ops[R any] struct {
	// Runtime is the realm's goja runtime, which a binding uses with the lock held (every
	// bind helper that builds a value); package sandbox exports no accessor for it, only
	// Realm.Do, which takes the lock.
	Runtime func(r *R) *goja.Runtime
	// Lock is the lock of the realm's engine, which is the realm's for its whole life: a
	// synchronous method releases it around its Go call (engine.Lock's Suspend and Resume,
	// the two halves of Realm.Unlocked without a closure).
	Lock func(r *R) *engine.Lock
	// MaxBytes is the realm's Limits.MaxBytes, read without copying its Limits: it is on
	// the path of every string argument.
	MaxBytes func(r *R) int
	// Rethrow panics again with x, recovered in the native function named method: a
	// JavaScript exception or goja's uncatchable error as it is, a Go panic as a
	// JavaScript Error naming the method.
	Rethrow func(r *R, method string, x any)
	// Throw raises err in JavaScript (a conv.ArgError as a TypeError); it does not return.
	Throw func(r *R, err error)
	// Promise runs call on a goroutine the sandbox owns and returns the Promise its
	// settle func resolves (bind's AsyncN).
	Promise func(r *R, call func(ctx context.Context) (func() goja.Value, error)) goja.Value
	// DeliverEmit calls fn fire and forget (bind's OnEmit).
	DeliverEmit func(r *R, what string, fn goja.Callable, args func() []goja.Value)
	// Budget fills b with a full budget for one conversion.
	Budget func(r *R, b *conv.Budget)
	// JSON converts v to JSON within the budget b (bind's RawJSON).
	JSON func(r *R, b *conv.Budget, v goja.Value, path string) json.RawMessage
	// FromAny converts plain Go data to a fresh JavaScript value (bind's FromAny).
	FromAny func(r *R, v any) goja.Value
	// SeamCall, SeamFail and SeamDisposer are the operations of the seam a
	// SeamAdapter's Build received (bind's Seam).
	SeamCall     func(seam any, ctx context.Context, i int, args func(r *R) []goja.Value, conv func(r *R, v goja.Value) error) error
	SeamFail     func(seam any, i int, err error)
	SeamDisposer func(seam any, r *R, v goja.Value, path string) func()
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

// A SeamAdapter describes an interface service that mount code may implement in
// JavaScript: sandbox/bind's NewSeamAdapter makes one, sandbox.Facade lists them by key,
// and ctx.provide checks an object against it and builds the Go value that calls it.
type SeamAdapter struct {
	Iface   string       // the Go interface, e.g. "agent.FileSystem"
	Methods []SeamMethod // the catalogued methods, in the order generated code numbers them
	Hidden  []string     // interface methods the façade leaves out: JavaScript cannot implement them
	// Build makes the Go value standing for one JavaScript implementation, seam being
	// package sandbox's handle on it (opaque here; the Seam* operations take it), key
	// the service key and mount the providing mount's id.
	Build func(seam any, key, mount string) any
}

// NewSeamAdapter describes the interface type t, whose catalogued methods are methods,
// and build: bind.NewSeamAdapter for the type T it is generic in. It panics when t is not
// an interface type or methods names a method t lacks: that is a stale or hand-edited
// façade.
func NewSeamAdapter(t reflect.Type, methods []SeamMethod, build func(seam any, key, mount string) any) *SeamAdapter {
	if t.Kind() != reflect.Interface {
		panic(fmt.Sprintf("bind.NewSeamAdapter[%s]: not an interface type; only an abstract seam can be implemented in JavaScript", t))
	}
	a := &SeamAdapter{Iface: t.String(), Methods: methods, Build: build}
	for _, m := range methods {
		if _, ok := t.MethodByName(m.Go); !ok {
			panic(fmt.Sprintf("bind.NewSeamAdapter[%s]: the interface has no method %s (regenerate the façade)", t, m.Go))
		}
	}
	for i := range t.NumMethod() {
		name := t.Method(i).Name
		if !slices.ContainsFunc(methods, func(m SeamMethod) bool { return m.Go == name }) {
			a.Hidden = append(a.Hidden, name)
		}
	}
	return a
}

// A SeamMethod is one catalogued method of an interface service, as JavaScript implements
// it.
type SeamMethod struct {
	Go        string // the Go name, e.g. "ReadFile"
	JS        string // the JavaScript name, e.g. "readFile"
	Signature string // the JavaScript signature, e.g. "async readFile(path: string): Promise<string>"
}

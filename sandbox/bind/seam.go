package bind

import (
	"context"
	"reflect"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/sandbox/internal/link"
	"github.com/dop251/goja"
)

// A SeamAdapter lets mount code implement an interface service (an abstract seam) in
// JavaScript. ctx.provide(key, obj) checks obj against the interface — every catalogued
// method must be a function — and provides, in the kit, a Go value implementing the
// interface whose methods call obj's, so Go code and Go plugins consume it through the
// ordinary Service.Get and Inject. Each call is bounded by CallTimeout (and by the
// caller's context for a context-taking method), its arguments converted Go→JavaScript and
// its result JavaScript→Go with the path in errors; a returned Promise is awaited. The
// value is an effect of the providing activation: once it ends every call fails with an
// error wrapping sandbox.ErrClosed.
//
// The generator emits one per interface service with [NewSeamAdapter]; a sandbox.Facade
// lists them by key in Seams. Its fields (Iface, Methods, Hidden) are the interface's
// name, its catalogued methods and the methods JavaScript cannot implement.
type SeamAdapter = link.SeamAdapter

// A SeamMethod is one catalogued method of an interface service, as JavaScript implements
// it: its Go name (Go: "ReadFile"), its JavaScript name (JS: "readFile") and its
// JavaScript signature (Signature: "async readFile(path: string): Promise<string>").
type SeamMethod = link.SeamMethod

// NewSeamAdapter describes the interface T, whose catalogued methods are methods (in the
// order generated code numbers them for [Seam.Call]), and build, which makes the Go value
// that calls a JavaScript implementation through a *Seam. Methods of T that methods does
// not list (marked //cordis:internal, or unexported) cannot be written in JavaScript:
// ctx.provide then refuses the key, naming them. It panics when T is not an interface
// type or methods names a method T lacks: that is a stale or hand-edited façade.
func NewSeamAdapter[T any](methods []SeamMethod, build func(*Seam) T) *SeamAdapter {
	return link.NewSeamAdapter(reflect.TypeFor[T](), methods, func(impl any, key, mount string) any {
		return build(&Seam{impl: impl, key: key, mount: mount})
	})
}

// A Seam is one JavaScript implementation of an interface service: the object a mount
// provided, bound to its realm. The Go value a [SeamAdapter] builds around it calls
// [Seam.Call] for each method, usually through [Ask], [Tell] and their siblings. It is
// safe for concurrent use.
type Seam struct {
	impl       any // package sandbox's handle on the implementation
	key, mount string
}

// Key returns the service key the implementation is provided under.
func (s *Seam) Key() string { return s.key }

// Mount returns the id of the providing mount.
func (s *Seam) Mount() string { return s.mount }

// Call calls method number i (an index into the adapter's methods) of the JavaScript
// implementation from Go, on any goroutine that does not hold the lock. args, if not nil,
// builds the arguments and conv, if not nil, reads the result (a returned Promise is
// awaited first); both run under the lock with the implementation's realm, and what they
// throw (a conversion error naming its path) is the call's error. ctx cancels the call;
// the call and the wait for a promise are bounded by CallTimeout. Errors name the method
// and the mount: a JavaScript throw or rejection (*sandbox.JSError), a time bound, or —
// once the providing activation has ended — an error wrapping sandbox.ErrClosed.
//
// A sync Go method must not be implemented by awaiting JavaScript of its caller's own
// realm: that realm cannot run its promise jobs until the call returns (see
// [sandbox.Realm.Deliver]).
func (s *Seam) Call(ctx context.Context, i int, args func(r *sandbox.Realm) []goja.Value, conv func(r *sandbox.Realm, v goja.Value) error) error {
	return realms.SeamCall(s.impl, ctx, i, args, conv)
}

// Fail reports the error of a call to method i whose Go signature has no error result to
// return it in (the method then returns its zero values): it is logged with the mount id
// and passed to Options.OnError.
func (s *Seam) Fail(i int, err error) { realms.SeamFail(s.impl, i, err) }

// Disposer converts a JavaScript function that a method of the implementation returned
// into the Go func() its signature promises: calling it calls the JavaScript function
// (emit semantics: bounded, its result ignored, a failure logged). undefined or null
// yields a func that does nothing, so Go never calls a nil func; another value throws a
// TypeError naming path. Once the implementation is gone the func does nothing. Lock held.
func (s *Seam) Disposer(r *sandbox.Realm, v goja.Value, path string) func() {
	return realms.SeamDisposer(s.impl, r, v, path)
}

// SeamArgs builds the JavaScript arguments of a call through a seam from the Go ones.
// Lock held. Nil means none.
type SeamArgs = func(r *sandbox.Realm) []goja.Value

// Ask calls method i of the JavaScript implementation behind s (see [Seam.Call])
// and converts its result with from, path ("fs.readFile(…)") naming it in errors.
func Ask[R any](ctx context.Context, s *Seam, i int, args SeamArgs, from From[R], path string) (R, error) {
	var res R
	err := s.Call(ctx, i, args, func(r *sandbox.Realm, v goja.Value) error {
		res = from(r, v, path)
		return nil
	})
	return res, err
}

// AskFound is Ask for a (T, bool) result: undefined or null is not found.
func AskFound[R any](ctx context.Context, s *Seam, i int, args SeamArgs, from From[R], path string) (R, bool, error) {
	var (
		res   R
		found bool
	)
	err := s.Call(ctx, i, args, func(r *sandbox.Realm, v goja.Value) error {
		if !absent(v) {
			res, found = from(r, v, path), true
		}
		return nil
	})
	return res, found, err
}

// Tell is Ask for a method without an error result: a failed call is reported
// ([Seam.Fail]) and R's zero value returned.
func Tell[R any](ctx context.Context, s *Seam, i int, args SeamArgs, from From[R], path string) R {
	res, err := Ask(ctx, s, i, args, from, path)
	if err != nil {
		s.Fail(i, err)
		var zero R
		return zero
	}
	return res
}

// TellFound is AskFound for a method without an error result, failing like Tell.
func TellFound[R any](ctx context.Context, s *Seam, i int, args SeamArgs, from From[R], path string) (R, bool) {
	res, found, err := AskFound(ctx, s, i, args, from, path)
	if err != nil {
		s.Fail(i, err)
		var zero R
		return zero, false
	}
	return res, found
}

// TellDisposer is Tell for a method returning a disposer: a failed call returns one
// that does nothing (Go never calls a nil disposer).
func TellDisposer(ctx context.Context, s *Seam, i int, args SeamArgs, path string) func() {
	if res := Tell(ctx, s, i, args, s.Disposer, path); res != nil {
		return res
	}
	return func() {}
}

// Notify calls method i, which returns nothing, reporting a failed call like Tell.
func Notify(ctx context.Context, s *Seam, i int, args SeamArgs) {
	if err := s.Call(ctx, i, args, nil); err != nil {
		s.Fail(i, err)
	}
}

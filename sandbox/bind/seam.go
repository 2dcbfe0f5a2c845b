package bind

import (
	"context"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/dop251/goja"
)

// SeamArgs builds the JavaScript arguments of a call through a seam from the Go ones.
// Lock held. Nil means none.
type SeamArgs = func(r *sandbox.Realm) []goja.Value

// Ask calls method i of the JavaScript implementation behind s (see sandbox.Seam.Call)
// and converts its result with from, path ("fs.readFile(…)") naming it in errors.
func Ask[R any](ctx context.Context, s *sandbox.Seam, i int, args SeamArgs, from From[R], path string) (R, error) {
	var res R
	err := s.Call(ctx, i, args, func(r *sandbox.Realm, v goja.Value) error {
		res = from(r, v, path)
		return nil
	})
	return res, err
}

// AskFound is Ask for a (T, bool) result: undefined or null is not found.
func AskFound[R any](ctx context.Context, s *sandbox.Seam, i int, args SeamArgs, from From[R], path string) (R, bool, error) {
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
// (sandbox.Seam.Fail) and R's zero value returned.
func Tell[R any](ctx context.Context, s *sandbox.Seam, i int, args SeamArgs, from From[R], path string) R {
	res, err := Ask(ctx, s, i, args, from, path)
	if err != nil {
		s.Fail(i, err)
		var zero R
		return zero
	}
	return res
}

// TellFound is AskFound for a method without an error result, failing like Tell.
func TellFound[R any](ctx context.Context, s *sandbox.Seam, i int, args SeamArgs, from From[R], path string) (R, bool) {
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
func TellDisposer(ctx context.Context, s *sandbox.Seam, i int, args SeamArgs, path string) func() {
	if res := Tell(ctx, s, i, args, s.Disposer, path); res != nil {
		return res
	}
	return func() {}
}

// Notify calls method i, which returns nothing, reporting a failed call like Tell.
func Notify(ctx context.Context, s *sandbox.Seam, i int, args SeamArgs) {
	if err := s.Call(ctx, i, args, nil); err != nil {
		s.Fail(i, err)
	}
}

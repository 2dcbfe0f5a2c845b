package bind

import (
	"context"
	"reflect"
	"strconv"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/dop251/goja"
)

// Args turns an event payload into a JavaScript listener's positional arguments. Lock
// held.
type Args[P any] func(r *sandbox.Realm, p P) []goja.Value

// OnEmit adapts a JavaScript listener to the emit-mode event ev: fire and forget, its
// promise not awaited. The delivery takes the lock, bounds the entry by CallTimeout,
// builds the arguments and calls the listener, and returns when it does, whether or not
// the realm is busy: a failure — a throw, the bound, or the rejection of its promise when
// it comes — is logged with the mount id and passed to Options.OnError, once (rejections
// within Limits.MaxRejectionReports); a delivery to a closed mount is dropped.
func OnEmit[P any](ev *kit.Event[P], args Args[P]) sandbox.EventAdapter {
	what := "a listener of " + strconv.Quote(ev.Name())
	return func(r *sandbox.Realm, c *kit.Context, fn goja.Callable) (func(), error) {
		return ev.On(c, func(p P) {
			realms.DeliverEmit(r, what, fn, func() []goja.Value { return args(r, p) })
		})
	}
}

// DeliverEmit calls fn, a JavaScript function, from Go (any goroutine not holding the
// lock) fire and forget, as [OnEmit] delivers: for a callback whose result nobody reads.
// args, if not nil, builds its arguments under the lock; what names fn in the reports of
// a failure ("the onChange callback of watch.start").
func DeliverEmit(r *sandbox.Realm, what string, fn goja.Callable, args func() []goja.Value) {
	realms.DeliverEmit(r, what, fn, args)
}

// OnParallel adapts a JavaScript listener to the parallel event ev: awaited, its result
// ignored.
func OnParallel[P any](ev *kit.ParallelEvent[P], args Args[P]) sandbox.EventAdapter {
	return func(r *sandbox.Realm, c *kit.Context, fn goja.Callable) (func(), error) {
		return ev.On(c, func(ctx context.Context, p P) error {
			return r.Deliver(ctx, fn, func() []goja.Value { return args(r, p) }, nil)
		})
	}
}

// OnSerial adapts a JavaScript listener to the serial event ev: its result read with
// from, unless it passes ([Passes]: undefined, null or false), which is R's zero
// value.
func OnSerial[P any, R comparable](ev *kit.SerialEvent[P, R], args Args[P], from From[R]) sandbox.EventAdapter {
	path := "the result of a listener of " + ev.Name()
	return func(r *sandbox.Realm, c *kit.Context, fn goja.Callable) (func(), error) {
		return ev.On(c, func(ctx context.Context, p P) (R, error) {
			var res R
			err := r.Deliver(ctx, fn, func() []goja.Value { return args(r, p) }, answer(r, &res, Passes, from, path))
			return res, err
		})
	}
}

// OnBail adapts a JavaScript listener to the bail event ev like OnSerial; a listener that
// fails is logged and answers R's zero value.
func OnBail[P any, R comparable](ev *kit.BailEvent[P, R], args Args[P], from From[R]) sandbox.EventAdapter {
	name := ev.Name()
	path := "the result of a listener of " + name
	return func(r *sandbox.Realm, c *kit.Context, fn goja.Callable) (func(), error) {
		return ev.On(c, func(p P) R {
			var res R
			if err := r.Deliver(context.Background(), fn, func() []goja.Value { return args(r, p) }, answer(r, &res, Passes, from, path)); err != nil {
				r.Logger().Warn("listener failed", "event", name, "err", err)
				var zero R
				return zero
			}
			return res
		})
	}
}

// OnWaterfall adapts a JavaScript listener to the waterfall event ev: its arguments end
// with next, a function returning a Promise of the rest of the chain's result (built with
// to); its result is read with from, undefined or null being R's zero value (false is
// converted like any other value).
func OnWaterfall[P, R any](ev *kit.WaterfallEvent[P, R], args Args[P], to Result[R], from From[R]) sandbox.EventAdapter {
	path := "the result of a listener of " + ev.Name()
	return func(r *sandbox.Realm, c *kit.Context, fn goja.Callable) (func(), error) {
		return ev.On(c, func(ctx context.Context, p P, next func() (R, error)) (R, error) {
			var res R
			err := r.Deliver(ctx, fn, func() []goja.Value {
				return append(args(r, p), nextFunc(r, func(context.Context) (func() goja.Value, error) {
					v, err := next()
					if err != nil {
						return nil, err
					}
					return func() goja.Value { return to(r, v) }, nil
				}))
			}, answer(r, &res, absent, from, path))
			return res, err
		})
	}
}

// nextFunc exposes a waterfall's next to JavaScript: a function returning a Promise of
// next's result (settle runs under the lock). Lock held.
func nextFunc(r *sandbox.Realm, next func(ctx context.Context) (func() goja.Value, error)) goja.Value {
	return r.Func("next", func(goja.FunctionCall) goja.Value {
		return realms.Promise(r, next)
	})
}

// answer returns the conv of a delivery that stores a listener's result in res, unless
// none(v).
func answer[R any](r *sandbox.Realm, res *R, none func(goja.Value) bool, from From[R], path string) func(goja.Value) error {
	return func(v goja.Value) error {
		if !none(v) {
			*res = from(r, v, path)
		}
		return nil
	}
}

// absent reports undefined or null.
func absent(v goja.Value) bool { return v == nil || goja.IsUndefined(v) || goja.IsNull(v) }

// Passes reports whether v, what a serial or bail listener returned (or its promise
// settled with), is no answer: undefined, null or false, as in cordis. The generated
// façade turns such a result into the zero value of the event's result type without
// converting it, so false passes whatever that type is; Go's dispatch passes over the zero
// value, and so over any result that converts to it (an empty string, 0, an object whose
// fields are all zero or absent).
func Passes(v goja.Value) bool {
	return v == nil || goja.IsUndefined(v) || goja.IsNull(v) || isFalse(v)
}

// isFalse reports whether v is the primitive false (not a Boolean object).
func isFalse(v goja.Value) bool {
	return !conv.IsObject(v) && v.ExportType() != nil && v.ExportType().Kind() == reflect.Bool && !v.ToBoolean()
}

package bind

import (
	"context"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/dop251/goja"
)

// The helpers below differ only in arity. Each reads its arguments under the lock, calls
// fn off it and converts the result under it again; res nil means undefined. A synchronous
// one releases the lock as Realm.Unlocked does, through a crossing: no closure and no
// frame of its own around fn, on the path of every JS → Go call.

// Func0 binds a synchronous method of 0 JavaScript parameters.
func Func0[R any](r *sandbox.Realm, method string, fn func() (R, error), res Result[R]) Method {
	l := realms.Lock(r)
	return newMethod(r, method, func(goja.FunctionCall) goja.Value {
		c := crossing{l: l}
		defer c.guard(r, method)
		c.leave()
		x, err := fn()
		c.back()
		if err != nil || res == nil {
			return noResult(r, err)
		}
		return res(r, x)
	})
}

// Async0 binds a context-taking method of 0 JavaScript parameters: JavaScript gets a
// Promise of its result.
func Async0[R any](r *sandbox.Realm, method string, fn func(context.Context) (R, error), res Result[R]) Method {
	return newMethod(r, method, func(goja.FunctionCall) goja.Value {
		defer guard(r, method)
		return realms.Promise(r, func(ctx context.Context) (func() goja.Value, error) {
			x, err := fn(ctx)
			return asyncResult(r, x, err, res)
		})
	})
}

// Func1 binds a synchronous method of 1 JavaScript parameter named p1.
func Func1[A1, R any](r *sandbox.Realm, method, p1 string, a1 Arg[A1], fn func(A1) (R, error), res Result[R]) Method {
	l := realms.Lock(r)
	return newMethod(r, method, func(call goja.FunctionCall) goja.Value {
		c := crossing{l: l}
		defer c.guard(r, method)
		x1 := a1(r, call.Argument(0), method, p1)
		c.leave()
		x, err := fn(x1)
		c.back()
		if err != nil || res == nil {
			return noResult(r, err)
		}
		return res(r, x)
	})
}

// Async1 binds a context-taking method of 1 JavaScript parameter: JavaScript gets a
// Promise of its result.
func Async1[A1, R any](r *sandbox.Realm, method, p1 string, a1 Arg[A1], fn func(context.Context, A1) (R, error), res Result[R]) Method {
	return newMethod(r, method, func(call goja.FunctionCall) goja.Value {
		defer guard(r, method)
		x1 := a1(r, call.Argument(0), method, p1)
		return realms.Promise(r, func(ctx context.Context) (func() goja.Value, error) {
			x, err := fn(ctx, x1)
			return asyncResult(r, x, err, res)
		})
	})
}

// Func2 binds a synchronous method of 2 JavaScript parameters named p1 … p2.
func Func2[A1, A2, R any](r *sandbox.Realm, method string, p1, p2 string, a1 Arg[A1], a2 Arg[A2], fn func(A1, A2) (R, error), res Result[R]) Method {
	l := realms.Lock(r)
	return newMethod(r, method, func(call goja.FunctionCall) goja.Value {
		c := crossing{l: l}
		defer c.guard(r, method)
		x1 := a1(r, call.Argument(0), method, p1)
		x2 := a2(r, call.Argument(1), method, p2)
		c.leave()
		x, err := fn(x1, x2)
		c.back()
		if err != nil || res == nil {
			return noResult(r, err)
		}
		return res(r, x)
	})
}

// Async2 binds a context-taking method of 2 JavaScript parameters: JavaScript gets a
// Promise of its result.
func Async2[A1, A2, R any](r *sandbox.Realm, method string, p1, p2 string, a1 Arg[A1], a2 Arg[A2], fn func(context.Context, A1, A2) (R, error), res Result[R]) Method {
	return newMethod(r, method, func(call goja.FunctionCall) goja.Value {
		defer guard(r, method)
		x1 := a1(r, call.Argument(0), method, p1)
		x2 := a2(r, call.Argument(1), method, p2)
		return realms.Promise(r, func(ctx context.Context) (func() goja.Value, error) {
			x, err := fn(ctx, x1, x2)
			return asyncResult(r, x, err, res)
		})
	})
}

// Func3 binds a synchronous method of 3 JavaScript parameters named p1 … p3.
func Func3[A1, A2, A3, R any](r *sandbox.Realm, method string, p1, p2, p3 string, a1 Arg[A1], a2 Arg[A2], a3 Arg[A3], fn func(A1, A2, A3) (R, error), res Result[R]) Method {
	l := realms.Lock(r)
	return newMethod(r, method, func(call goja.FunctionCall) goja.Value {
		c := crossing{l: l}
		defer c.guard(r, method)
		x1 := a1(r, call.Argument(0), method, p1)
		x2 := a2(r, call.Argument(1), method, p2)
		x3 := a3(r, call.Argument(2), method, p3)
		c.leave()
		x, err := fn(x1, x2, x3)
		c.back()
		if err != nil || res == nil {
			return noResult(r, err)
		}
		return res(r, x)
	})
}

// Async3 binds a context-taking method of 3 JavaScript parameters: JavaScript gets a
// Promise of its result.
func Async3[A1, A2, A3, R any](r *sandbox.Realm, method string, p1, p2, p3 string, a1 Arg[A1], a2 Arg[A2], a3 Arg[A3], fn func(context.Context, A1, A2, A3) (R, error), res Result[R]) Method {
	return newMethod(r, method, func(call goja.FunctionCall) goja.Value {
		defer guard(r, method)
		x1 := a1(r, call.Argument(0), method, p1)
		x2 := a2(r, call.Argument(1), method, p2)
		x3 := a3(r, call.Argument(2), method, p3)
		return realms.Promise(r, func(ctx context.Context) (func() goja.Value, error) {
			x, err := fn(ctx, x1, x2, x3)
			return asyncResult(r, x, err, res)
		})
	})
}

// Func4 binds a synchronous method of 4 JavaScript parameters named p1 … p4.
func Func4[A1, A2, A3, A4, R any](r *sandbox.Realm, method string, p1, p2, p3, p4 string, a1 Arg[A1], a2 Arg[A2], a3 Arg[A3], a4 Arg[A4], fn func(A1, A2, A3, A4) (R, error), res Result[R]) Method {
	l := realms.Lock(r)
	return newMethod(r, method, func(call goja.FunctionCall) goja.Value {
		c := crossing{l: l}
		defer c.guard(r, method)
		x1 := a1(r, call.Argument(0), method, p1)
		x2 := a2(r, call.Argument(1), method, p2)
		x3 := a3(r, call.Argument(2), method, p3)
		x4 := a4(r, call.Argument(3), method, p4)
		c.leave()
		x, err := fn(x1, x2, x3, x4)
		c.back()
		if err != nil || res == nil {
			return noResult(r, err)
		}
		return res(r, x)
	})
}

// Async4 binds a context-taking method of 4 JavaScript parameters: JavaScript gets a
// Promise of its result.
func Async4[A1, A2, A3, A4, R any](r *sandbox.Realm, method string, p1, p2, p3, p4 string, a1 Arg[A1], a2 Arg[A2], a3 Arg[A3], a4 Arg[A4], fn func(context.Context, A1, A2, A3, A4) (R, error), res Result[R]) Method {
	return newMethod(r, method, func(call goja.FunctionCall) goja.Value {
		defer guard(r, method)
		x1 := a1(r, call.Argument(0), method, p1)
		x2 := a2(r, call.Argument(1), method, p2)
		x3 := a3(r, call.Argument(2), method, p3)
		x4 := a4(r, call.Argument(3), method, p4)
		return realms.Promise(r, func(ctx context.Context) (func() goja.Value, error) {
			x, err := fn(ctx, x1, x2, x3, x4)
			return asyncResult(r, x, err, res)
		})
	})
}

package bind

import (
	"context"
	"testing"

	"github.com/dop251/goja"

	"github.com/cordiskit/cordiskit/sandbox"
)

// runWith runs the mount body src in a fresh sandbox with globals, closing both when the
// test ends.
func runWith(t testing.TB, globals map[string]func(*sandbox.Realm) goja.Value, src string) *sandbox.Mount {
	t.Helper()
	ctx := context.Background()
	sb := sandbox.New(nil)
	t.Cleanup(func() { _ = sb.Close(ctx) })
	p, err := sb.Compile("dyn-1", src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sb.RunWith(ctx, p, &sandbox.RunOptions{Globals: globals})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(ctx) })
	return m
}

// nextFunc gives JavaScript a function returning a Promise of what next settles with.
func TestNextFunc(t *testing.T) {
	ctx := context.Background()
	var f goja.Callable
	globals := map[string]func(*sandbox.Realm) goja.Value{
		"next": func(r *sandbox.Realm) goja.Value {
			return nextFunc(r, func(context.Context) (func() goja.Value, error) {
				return func() goja.Value { return Value(r, "rest of chain") }, nil
			})
		},
		"keep": func(r *sandbox.Realm) goja.Value {
			return r.Func("keep", func(call goja.FunctionCall) goja.Value {
				f, _ = goja.AssertFunction(call.Argument(0))
				return goja.Undefined()
			})
		},
	}
	m := runWith(t, globals, `keep(async () => "got " + await next()); return { name: 'probe', apply() {} }`)
	if f == nil {
		t.Fatal("keep was not called")
	}
	var got string
	err := m.Realm().Deliver(ctx, f, nil, func(v goja.Value) error { got = v.String(); return nil })
	if err != nil || got != "got rest of chain" {
		t.Fatalf("got %q, %v", got, err)
	}
}

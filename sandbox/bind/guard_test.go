package bind

import (
	"context"
	"testing"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"

	"github.com/cordiskit/cordiskit/sandbox"
)

// A Go panic inside a bound method becomes a JavaScript Error naming the method, which
// JavaScript can catch; the realm goes on serving calls.
func TestMethodGoPanicBecomesError(t *testing.T) {
	var caught []string
	globals := map[string]func(*sandbox.Realm) goja.Value{
		"t": func(r *sandbox.Realm) goja.Value {
			o, err := Object(r,
				Func1(r, "t.boom", "s", String[string], func(string) (string, error) { panic("a bug in a method") }, Value[string]),
				Func0(r, "t.crash", func() (int, error) {
					var m map[string]int
					//lint:ignore SA5000 the runtime error is the point
					m["x"] = 1 // a runtime error
					return 0, nil
				}, Value[int]),
				Async0(r, "t.later", func(context.Context) (struct{}, error) { return struct{}{}, nil }, nil),
				Func1(r, "t.report", "msg", String[string], func(s string) (struct{}, error) {
					caught = append(caught, s)
					return struct{}{}, nil
				}, nil),
			)
			if err != nil {
				t.Fatal(err)
			}
			return o
		},
	}
	runWith(t, globals, `
		for (const f of [() => t.boom('x'), () => t.crash()]) {
			try { f(); t.report('no error') } catch (e) { t.report((e instanceof Error ? '' : 'not an Error: ') + e.message) }
		}
		t.report(typeof t.later().then)
		return { name: 'probe', apply() {} }`)
	want := []string{
		"t.boom: internal error (Go panic): a bug in a method",
		"t.crash: internal error (Go panic): assignment to entry in nil map",
		"function",
	}
	if diff := cmp.Diff(want, caught); diff != "" {
		t.Errorf("what JavaScript caught (-want +got):\n%s", diff)
	}
}

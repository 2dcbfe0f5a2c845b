package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/dop251/goja"
)

// BenchmarkJSToGoCall is the jstogo group's JS → Go figure as four testing.B benchmarks
// for profilers and instruction counters: each runs one JavaScript loop of b.N iterations
// — tools.owner through the generated binding in a mount (generated), the same method
// through the floor's bare native function (floor), and each side's loop without the call
// (empty, floor-empty). The call's cost net of the loop is generated − empty against
// floor − floor-empty. Counted by valgrind (the difference of two -test.benchtime values
// removes the setup), the ratio does not depend on the machine's load:
//
//	go test -c -o bc.test ./internal/cmd/benchcmp
//	GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind ./bc.test -test.run '^$' \
//	    -test.bench 'JSToGoCall/generated$' -test.benchtime 21000x
func BenchmarkJSToGoCall(b *testing.B) {
	ctx := context.Background()
	h, err := newKitHost()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := h.close(); err != nil {
			b.Error(err)
		}
	})
	if _, err := h.mountID(ctx, callsBody); err != nil {
		b.Fatal(err)
	}
	rt, err := bareCallsRuntime(h.tools)
	if err != nil {
		b.Fatal(err)
	}
	kitLoop := func(tool string) func(b *testing.B) {
		return func(b *testing.B) {
			out, err := h.tools.Call(ctx, tool, json.RawMessage(fmt.Sprintf(`{"n":%d}`, b.N)))
			if err != nil {
				b.Fatal(err)
			}
			var res struct{ Count int }
			if err := json.Unmarshal(out, &res); err != nil || res.Count != b.N {
				b.Fatalf("%s: got %s for n=%d (%v)", tool, out, b.N, err)
			}
		}
	}
	bareLoop := func(src string) func(b *testing.B) {
		v, err := rt.RunString(src)
		if err != nil {
			b.Fatal(err)
		}
		fn, _ := goja.AssertFunction(v)
		return func(b *testing.B) {
			v, err := fn(goja.Undefined(), rt.ToValue(b.N))
			if err != nil || v.ToInteger() != int64(b.N) {
				b.Fatalf("bare loop: count %v for n=%d (%v)", v, b.N, err)
			}
		}
	}
	b.Run("generated", kitLoop("bench_generated"))
	b.Run("empty", kitLoop("bench_empty"))
	b.Run("floor", bareLoop(bareGeneratedLoop))
	b.Run("floor-empty", bareLoop(bareEmptyLoop))
}

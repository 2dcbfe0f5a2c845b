package sandbox

// Benchmarks of what strikes and shares add to a tool call and a timer run, each beside
// its floor:
//
//	go test -run '^$' -bench 'ToolCall|ToolStriker|TimerShare' -benchmem ./sandbox
//
//	BenchmarkToolCall        a JS tool called through the registry (kit.Tools.Call): lookup,
//	                         argument checks, the striker, entry, JSON in and out
//	BenchmarkToolCallFloor   the same execute entered with the same JSON in and out
//	                         (Realm.deliver), nothing else
//	BenchmarkToolStriker     one call's accounting (wrap and judge) around execute, in one entry
//	BenchmarkToolStrikerFloor  execute called bare in the same entry
//	BenchmarkTimerShare      one timer run's reservation and release (admit + end)
//	BenchmarkStrikeRatios    both pairs above in alternating batches (median batch of each
//	                         side), reported as ns per call and as ratios: the figures to quote

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
)

const benchTool = `return { name: 'bench-tool', apply(ctx) {
	ctx.tools.register({ name: 'echo', description: 'echoes', parameters: { type: 'object', properties: { n: { type: 'number' } } },
		execute: (a) => ({ n: a.n + 1 }) })
} }`

// benchToolExec mounts benchTool and returns the registry and the tool's execute.
func benchToolExec(b *testing.B) (*kit.Tools, *Mount, goja.Callable) {
	root, sb := benchHost(b)
	m, _ := benchMount(b, root, sb, benchTool, 1)
	tools, _ := kit.ToolsService.Get(root)
	var exec goja.Callable
	m.realm.engine.lock.Lock()
	// The execute the tool was registered with, read back from the mount's realm.
	v, err := m.realm.rt.RunString(`(a) => ({ n: a.n + 1 })`)
	if err == nil {
		exec, _ = goja.AssertFunction(v)
	}
	m.realm.engine.lock.Unlock()
	if exec == nil {
		b.Fatal("no execute", err)
	}
	return tools, m, exec
}

func BenchmarkToolCall(b *testing.B) {
	tools, _, _ := benchToolExec(b)
	ctx := context.Background()
	in := json.RawMessage(`{"n":1}`)
	b.ReportAllocs()
	for b.Loop() {
		if out, err := tools.Call(ctx, "echo", in); err != nil || string(out) != `{"n":2}` {
			b.Fatal(string(out), err)
		}
	}
}

func BenchmarkToolCallFloor(b *testing.B) {
	_, m, exec := benchToolExec(b)
	r := m.realm
	ctx := context.Background()
	in := json.RawMessage(`{"n":1}`)
	b.ReportAllocs()
	for b.Loop() {
		var out json.RawMessage
		err := r.deliver(ctx, "tool \"echo\"", exec, func() []goja.Value { return []goja.Value{FromJSON(r, in)} }, func(v goja.Value) error {
			var err error
			out, err = r.appendJSON(nil, v, "result", 0)
			return err
		})
		if err != nil || string(out) != `{"n":2}` {
			b.Fatal(string(out), err)
		}
	}
}

// benchInEntry runs call b.N times inside one entry of m's realm, as a delivery does.
func benchInEntry(b *testing.B, m *Mount, call func()) {
	r := m.realm
	l := &r.engine.lock
	l.Lock()
	defer l.Unlock()
	e, err := r.begin(context.Background(), "bench", "CallTimeout", r.engine.timeouts.Call)
	if err != nil {
		b.Fatal(err)
	}
	defer r.end(e)
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
}

func BenchmarkToolStriker(b *testing.B) {
	_, m, exec := benchToolExec(b)
	s := &toolStriker{r: m.realm, name: "echo"}
	arg := m.realm.rt.ToValue(map[string]any{"n": 1})
	ctx := context.Background()
	benchInEntry(b, m, func() {
		run := &toolRun{}
		_, err := s.wrap(exec, run)(goja.Undefined(), arg)
		if err = s.judge(ctx, run, err); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkToolStrikerFloor(b *testing.B) {
	_, m, exec := benchToolExec(b)
	arg := m.realm.rt.ToValue(map[string]any{"n": 1})
	benchInEntry(b, m, func() {
		if _, err := exec(goja.Undefined(), arg); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkTimerShare(b *testing.B) {
	var s timerShare
	b.ReportAllocs()
	for b.Loop() {
		now := time.Now()
		if wait, _, _ := s.admit(now, time.Second, 50); wait != 0 {
			b.Fatal("throttled", wait)
		}
		s.end(now, 0, 50)
	}
}

// BenchmarkStrikeRatios times each figure beside its floor in alternating batches of 200
// calls (which side goes first alternates too), 31 batches a side after 3 warm-up
// batches, and reports the median batch of each side per call and their ratio: on a
// shared machine a ratio of interleaved medians is far steadier than two separate runs.
func BenchmarkStrikeRatios(b *testing.B) {
	tools, m, exec := benchToolExec(b)
	r := m.realm
	ctx := context.Background()
	in := json.RawMessage(`{"n":1}`)
	call := func() {
		if _, err := tools.Call(ctx, "echo", in); err != nil {
			b.Fatal(err)
		}
	}
	floor := func() {
		err := r.deliver(ctx, "tool \"echo\"", exec, func() []goja.Value { return []goja.Value{FromJSON(r, in)} }, func(v goja.Value) error {
			_, err := r.appendJSON(nil, v, "result", 0)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	s := &toolStriker{r: r, name: "echo"}
	l := &r.engine.lock
	var arg goja.Value
	l.Lock()
	arg = r.rt.ToValue(map[string]any{"n": 1})
	l.Unlock()
	inEntry := func(f func()) func() {
		return func() {
			l.Lock()
			e, err := r.begin(ctx, "bench", "CallTimeout", r.engine.timeouts.Call)
			if err != nil {
				l.Unlock()
				b.Fatal(err)
			}
			f()
			r.end(e)
			l.Unlock()
		}
	}
	striker := inEntry(func() {
		run := &toolRun{}
		_, err := s.wrap(exec, run)(goja.Undefined(), arg)
		if err = s.judge(ctx, run, err); err != nil {
			b.Fatal(err)
		}
	})
	bare := inEntry(func() {
		if _, err := exec(goja.Undefined(), arg); err != nil {
			b.Fatal(err)
		}
	})
	for b.Loop() {
		callNs, floorNs := interleave(call, floor)
		strikerNs, bareNs := interleave(striker, bare)
		b.ReportMetric(callNs, "call-ns")
		b.ReportMetric(floorNs, "call-floor-ns")
		b.ReportMetric(callNs/floorNs, "call-ratio")
		b.ReportMetric(strikerNs, "striker-ns")
		b.ReportMetric(bareNs, "striker-floor-ns")
		b.ReportMetric(strikerNs/bareNs, "striker-ratio")
	}
}

// interleave times fig and floor in alternating batches and returns the median batch of
// each, per call, in nanoseconds.
func interleave(fig, floor func()) (figNs, floorNs float64) {
	const batch, batches, warm = 200, 31, 3
	time1 := func(f func()) float64 {
		start := time.Now()
		for range batch {
			f()
		}
		return float64(time.Since(start).Nanoseconds()) / batch
	}
	var a, c []float64
	for i := range warm + batches {
		x, y := fig, floor
		if i%2 == 1 {
			x, y = floor, fig
		}
		tx, ty := time1(x), time1(y)
		if i%2 == 1 {
			tx, ty = ty, tx
		}
		if i >= warm {
			a, c = append(a, tx), append(c, ty)
		}
	}
	slices.Sort(a)
	slices.Sort(c)
	return a[len(a)/2], c[len(c)/2]
}

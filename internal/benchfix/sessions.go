package benchfix

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A Caller makes one tool call as session: through a kit registry with kit.WithSession,
// say, as an adapter serving many sessions does.
type Caller func(ctx context.Context, session, tool string) error

// SpinBody is mount code registering tool, which spins ms milliseconds of JavaScript per
// call (Date.now in a loop), as a session calling a tool just under its bound back to back
// does.
func SpinBody(tool string, ms int) string {
	return fmt.Sprintf(`return { name: '%s', apply(ctx) {
	ctx.tools.register({ name: '%s', description: 'spins', parameters: { type: 'object' },
		execute: () => { const t = Date.now(); while (Date.now() - t < %d) {} return 'spun' } })
} }`, tool, tool, ms)
}

// WorkBody is mount code registering tool, which runs a fixed amount of JavaScript per
// call: n turns of an arithmetic loop.
func WorkBody(tool string, n int) string {
	return fmt.Sprintf(`return { name: '%s', apply(ctx) {
	ctx.tools.register({ name: '%s', description: 'works', parameters: { type: 'object' },
		execute: () => { let x = 0; for (let i = 0; i < %d; i++) { x = (x + i * 7) %% 1000003 } return x } })
} }`, tool, tool, n)
}

// EchoBody is mount code registering tool, which returns at once: the bystander's call.
func EchoBody(tool string) string {
	return fmt.Sprintf(`return { name: '%s', apply(ctx) {
	ctx.tools.register({ name: '%s', description: 'echoes', parameters: { type: 'object' }, execute: () => 1 })
} }`, tool, tool)
}

// Spin calls each session's tool (tools: session → tool) back to back, each session from a
// goroutine of its own, until the stop it returns is called; stop waits for the calls in
// progress and returns the first error.
func Spin(ctx context.Context, call Caller, tools map[string]string) (stop func() error) {
	var (
		wg    sync.WaitGroup
		done  atomic.Bool
		mu    sync.Mutex
		first error
	)
	for session, tool := range tools {
		wg.Go(func() {
			for !done.Load() {
				if err := call(ctx, session, tool); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	return func() error {
		done.Store(true)
		wg.Wait()
		return first
	}
}

// Bystander measures a bystander session's tool calls beside the same calls on an idle
// runtime, in chunks of n calls, alternately while the spinners spin (Spin) and while
// nothing else runs — the idle chunk first when idleFirst — and returns each side's
// latencies.
func Bystander(ctx context.Context, call Caller, spinners map[string]string, session, tool string, chunks, n int, idleFirst bool) (busy, idle []time.Duration, err error) {
	measure := func(into *[]time.Duration) error {
		for range n {
			t0 := time.Now()
			if err := call(ctx, session, tool); err != nil {
				return err
			}
			*into = append(*into, time.Since(t0))
		}
		return nil
	}
	spinning := func() error {
		stop := Spin(ctx, call, spinners)
		time.Sleep(time.Millisecond) // the spinners are in their calls
		return errors.Join(measure(&busy), stop())
	}
	quiet := func() error { return measure(&idle) }
	for c := range chunks {
		first, second := spinning, quiet
		if (c%2 == 0) == idleFirst {
			first, second = quiet, spinning
		}
		if err := first(); err != nil {
			return nil, nil, err
		}
		if err := second(); err != nil {
			return nil, nil, err
		}
	}
	return busy, idle, nil
}

// Parallel makes n calls of each session's tool (tools: session → tool), the sessions'
// calls concurrently (a goroutine each), with GOMAXPROCS set to procs for the duration,
// and returns the wall time.
func Parallel(ctx context.Context, call Caller, tools map[string]string, n, procs int) (time.Duration, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	t0 := time.Now()
	for session, tool := range tools {
		wg.Go(func() {
			for range n {
				if err := call(ctx, session, tool); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(t0), errors.Join(errs...)
}

// ParallelGo is what the machine gives two threads, to read Parallel's speedup by: two
// goroutines each running n turns of WorkBody's loop in Go, with GOMAXPROCS set to procs;
// it returns the wall time.
func ParallelGo(n, procs int) time.Duration {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var wg sync.WaitGroup
	t0 := time.Now()
	for range 2 {
		wg.Go(func() { loopSink.Add(int64(goLoop(n))) })
	}
	wg.Wait()
	return time.Since(t0)
}

var loopSink atomic.Int64

func goLoop(n int) int {
	x := 0
	for i := range n {
		x = (x + i*7) % 1000003
	}
	return x
}

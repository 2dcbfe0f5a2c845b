package sandbox

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestConcurrentEntries drives one sandbox from many goroutines at once: Go events from
// several goroutines, JS calling a sync Go method that emits back into JavaScript (the
// same realm and others), async Go calls settling, tool calls and cross-mount calls. It
// must neither deadlock nor race (run with -race), and every listener call must land.
func TestConcurrentEntries(t *testing.T) {
	h := newHost(t, &Timeouts{VM: 5 * time.Second, Mount: 5 * time.Second, Call: 5 * time.Second})
	provider, fp := h.mustMount(`return { apply(ctx) {
		let n = 0
		ctx.provide('counter', { inc() { return ++n }, async incLater() { await 0; return ++n } })
	} }`)
	defer h.unmount(provider, fp)
	const mounts = 4
	var ms []*Mount
	for i := range mounts {
		m, f := h.mustMount(`
			globalThis.ticks = 0
			return { inject: ['greeter', 'counter'], apply(ctx) {
				ctx.on('bench/tick', (id, text) => {
					ticks++
					if (text === 'shout') ctx.greeter.shout('echo') // emits bench/tick inline, into every mount
					ctx.counter.inc()
				})
				ctx.tools.register({ name: 'work_` + strconv.Itoa(i) + `', description: 'd', execute: async () => {
					const body = await ctx.greeter.fetch('u')
					await ctx.counter.incLater()
					return { body, ticks }
				} })
			} }`)
		defer h.unmount(m, f)
		ms = append(ms, m)
	}
	const perGoroutine = 50
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range perGoroutine {
				text := "plain"
				if i%10 == 0 {
					text = "shout"
				}
				benchTick.Emit(h.root, tickEvent{ID: g, Text: text})
			}
		})
	}
	for i := range mounts {
		wg.Go(func() {
			for range 20 {
				if _, err := h.call("work_"+strconv.Itoa(i), `{}`); err != nil {
					t.Errorf("work_%d: %v", i, err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("deadlock")
	}
	// 4 goroutines × 50 emits; 5 of each 50 shout, and every mount's listener shouts back
	// once into all mounts.
	want := 4*perGoroutine + 4*5*mounts
	for _, m := range ms {
		if got := h.eval(m, `ticks`); got != strconv.Itoa(want) {
			t.Errorf("%s: ticks %s, want %d", m.ID(), got, want)
		}
	}
}

// TestUnmountCancelsAsyncWork unmounts a mount while an async Go call of it is in flight:
// the call's context is cancelled, Close returns promptly and no goroutine is left
// (TestMain runs goleak).
func TestUnmountCancelsAsyncWork(t *testing.T) {
	h := newHost(t, &Timeouts{Call: 30 * time.Second, Mount: 5 * time.Second, VM: 5 * time.Second})
	m, f := h.mustMount(`return { inject: ['timer'], apply(ctx) {
		ctx.tools.register({ name: 'slow', description: 'd', execute: async () => { await ctx.sleep(60000); return 1 } })
	} }`)
	errc := make(chan error, 1)
	go func() {
		_, err := h.call("slow", `{}`)
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.Dispose(ctx); err != nil {
		t.Errorf("dispose: %v", err)
	}
	if err := m.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("unmount took %v", time.Since(start))
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Error("the interrupted tool call succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the tool call never returned")
	}
}

package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
)

// TestHostHalfAllocationIsBounded is the red team's report, replayed: one host half
// reached 1.26 GB in 5 s. Here a host half whose body allocates and keeps until stopped
// fails to start with the budget's error (long before VMTimeout), a running host half's
// handler that does the same fails its call, the heap in use stays well under a stated
// ceiling throughout, and another host half keeps answering. It runs in a child process
// that ends itself if the heap grows past 1 GiB: a bound that does not hold must not take
// the test binary, or the machine, with it.
func TestHostHalfAllocationIsBounded(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	const budget = 32 << 20
	const bound = 20 * time.Second // far above what reaching the budget takes
	root := kit.New(nil)
	h := NewSandboxHost(&sandbox.Options{
		Timeouts: &sandbox.Timeouts{VM: bound, Mount: bound, Call: bound},
		Limits:   &sandbox.Limits{MaxEntryAlloc: budget},
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := root.Fiber().Dispose(ctx); err != nil {
			t.Errorf("dispose: %v", err)
		}
		if err := h.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	start := func(id, code string) (HostRun, error) {
		return h.Start(context.Background(), root, HostSpec{PluginID: id, PackageID: "pkg-" + id, PluginRunID: "run-" + id, Code: code})
	}
	bystander, err := start("bystander-1", `harness.handle('ping', () => 'pong'); return () => {}`)
	if err != nil {
		t.Fatal(err)
	}
	defer bystander.Stop(context.Background())

	peak := watchHeapInUse(t, 1<<30)
	ceiling := uint64(4 * budget) // the budget, two ticks of allocation and the collector's headroom

	// The body allocates until stopped: the half does not start.
	began := time.Now()
	_, err = start("hog-1", `const keep = []; for (let i = 0; ; i++) keep.push({ i, s: 'item ' + i }); return () => {}`)
	var ae *sandbox.AllocError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "allocated more than 32 MiB in one call (Limits.MaxEntryAlloc)") {
		t.Fatalf("Start after %v: %v; want the budget's *sandbox.AllocError", time.Since(began), err)
	}
	if d := time.Since(began); d > bound/2 {
		t.Errorf("the body ran %v before it was stopped; its time bound (%v) was near", d, bound)
	}
	ping(t, bystander, "after the body was stopped")

	// A handler allocates until stopped: its call fails, the half and the bystander serve.
	run, err := start("hog-2", `
		harness.handle('hog', () => { globalThis.keep = []; for (let i = 0; ; i++) keep.push({ i, s: 'item ' + i }) })
		harness.handle('kept', () => globalThis.keep.length > 0)
		return () => {}`)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop(context.Background())
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() { // the bystander's calls while the hog runs
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if out, err := bystander.Invoke(context.Background(), "ping", nil); err != nil || string(out) != `"pong"` {
				t.Errorf("bystander call %d while the hog ran: %s, %v", i, out, err)
			}
		}
	})
	began = time.Now()
	_, err = run.Invoke(context.Background(), "hog", nil)
	close(done)
	wg.Wait()
	if !errors.As(err, &ae) {
		t.Fatalf("Invoke(hog) after %v: %v; want the budget's *sandbox.AllocError", time.Since(began), err)
	}
	if d := time.Since(began); d > bound/2 {
		t.Errorf("the handler ran %v before it was stopped; its time bound (%v) was near", d, bound)
	}
	if out, err := run.Invoke(context.Background(), "kept", nil); err != nil || string(out) != "true" {
		t.Errorf("the stopped half does not serve: %s, %v", out, err)
	}
	ping(t, bystander, "after the handler was stopped")
	if grew := peak(); grew > ceiling {
		t.Errorf("the heap in use grew by %d MiB at its peak; want at most %d MiB (4× the budget)", grew>>20, ceiling>>20)
	} else {
		t.Logf("the heap in use grew by %d MiB at its peak (ceiling %d MiB)", grew>>20, ceiling>>20)
	}
}

func ping(t *testing.T, run HostRun, when string) {
	t.Helper()
	if out, err := run.Invoke(context.Background(), "ping", json.RawMessage(`null`)); err != nil || string(out) != `"pong"` {
		t.Errorf("the bystander %s: %s, %v", when, out, err)
	}
}

// watchHeapInUse samples the heap in use every millisecond until the returned function is
// called, which returns the peak's growth over the start; past abort of growth it ends the
// process with a panic.
func watchHeapInUse(t *testing.T, abort uint64) (peak func() uint64) {
	t.Helper()
	read := func() uint64 {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	runtime.GC()
	base, top := read(), uint64(0)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			top = max(top, read())
			if top > base+abort {
				panic(fmt.Sprintf("the heap in use grew by %d MiB: nothing stopped the allocating JavaScript", (top-base)>>20))
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	var once sync.Once
	peak = func() uint64 {
		once.Do(func() { close(stop); wg.Wait() })
		return top - min(top, base)
	}
	t.Cleanup(func() { peak() })
	return peak
}

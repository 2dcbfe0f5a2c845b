package sandbox

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/cordiskit/cordiskit/kit"
)

// allocBudget is the Limits.MaxEntryAlloc of the tests here: small, so that going past it
// is quick, even under -race.
const allocBudget = 32 << 20

// allocCallBound is their CallTimeout: far above what reaching allocBudget takes, so an
// entry stopped by its time bound shows as the wrong error.
const allocCallBound = 20 * time.Second

// newAllocHost is newHost with the limits given.
func newAllocHost(t *testing.T, timeouts *Timeouts, limits *Limits) *host {
	t.Helper()
	lb := &logBuffer{}
	logger := slog.New(slog.NewTextHandler(io.MultiWriter(lb), &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := &host{t: t, log: lb}
	h.root = kit.New(&kit.Options{Logger: logger})
	h.sb = New(&Options{Facade: testFacade, Timeouts: timeouts, Limits: limits, Logger: logger})
	t.Cleanup(h.close)
	return h
}

// A heapWatch samples the heap in use (objects live or not yet swept) every millisecond
// until stopped, and keeps the peak. Past abortAt of growth it ends the (child) process:
// a bound that does not hold must not take the machine's memory with it.
type heapWatch struct {
	stop chan struct{}
	wg   sync.WaitGroup
	peak uint64 // read after stopWatch
	base uint64
}

const heapInUse = "/memory/classes/heap/objects:bytes"

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heapAbort is the growth of the heap in use past which a heapWatch ends the process.
const heapAbort = 1 << 30

func watchHeap() *heapWatch {
	runtime.GC()
	w := &heapWatch{stop: make(chan struct{}), base: readMetric(heapInUse)}
	w.wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			w.peak = max(w.peak, readMetric(heapInUse))
			if w.peak > w.base+heapAbort {
				panic(fmt.Sprintf("the heap in use grew by %d MiB: nothing stopped the allocating JavaScript", (w.peak-w.base)>>20))
			}
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	})
	return w
}

// growth stops the watch and returns the peak's growth over the heap in use at the start.
func (w *heapWatch) growth() uint64 {
	close(w.stop)
	w.wg.Wait()
	return w.peak - min(w.peak, w.base)
}

// liveAfterGC returns the live heap after a full collection.
func liveAfterGC() uint64 {
	runtime.GC()
	return readMetric("/gc/heap/live:bytes")
}

// TestAllocBoundStopsKeeper is the red team's host half: JavaScript that allocates and
// keeps everything until something stops it (without a bound it reaches gigabytes before
// its time bound; hence the child process). It is stopped by Limits.MaxEntryAlloc with an
// error a model can act on, long before its time bound; what it kept stays within the
// budget plus the watchdog's two ticks of allocation, and the heap's peak within twice
// that (the collector lets garbage reach the size of the live heap); another mount
// answers throughout and after; the same mount serves its next call.
func TestAllocBoundStopsKeeper(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newAllocHost(t, &Timeouts{VM: allocCallBound, Mount: allocCallBound, Call: allocCallBound}, &Limits{MaxEntryAlloc: allocBudget})
	m, f := h.mustMount(`return { name: 'hog', apply(ctx) {
		ctx.tools.register({ name: 'hog', description: 'd', execute: () => {
			globalThis.keep = []
			for (let i = 0; ; i++) keep.push({ i, s: 'item ' + i, a: [i, i + 1] })
		} })
		ctx.tools.register({ name: 'kept', description: 'd', execute: () => keep.length })
	} }`)
	defer h.unmount(m, f)
	mp, fp := h.mustMount(`return { name: 'probe', apply(ctx) {
		ctx.tools.register({ name: 'probe', description: 'd', execute: () => 'ok' })
	} }`)
	defer h.unmount(mp, fp)

	live := liveAfterGC()
	w := watchHeap()
	var probes []error
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // the bystander: one call after another until the hog is stopped
		for {
			select {
			case <-done:
				return
			default:
			}
			_, err := h.call("probe", `{}`)
			probes = append(probes, err)
			time.Sleep(5 * time.Millisecond)
		}
	})
	start := time.Now()
	_, err := h.call("hog", `{}`)
	elapsed := time.Since(start)
	growth := w.growth()
	close(done)
	wg.Wait()

	var ae *AllocError
	if !errors.As(err, &ae) {
		t.Fatalf("the hog's call ended after %v with %v; want an *AllocError", elapsed, err)
	}
	for _, want := range []string{"allocated more than 32 MiB in one call (Limits.MaxEntryAlloc) and was stopped", "build the data in smaller pieces"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nwant it to contain %q", err, want)
		}
	}
	if elapsed > allocCallBound/2 {
		t.Errorf("the hog ran %v before it was stopped: its allocation bound did not stop it, its time bound (%v) was near", elapsed, allocCallBound)
	}
	kept := sub(liveAfterGC(), live) // keep is a global: still referenced
	const slack = 16 << 20           // two ticks of allocation, with room
	if kept > allocBudget+slack {
		t.Errorf("the hog kept %d MiB when it was stopped; want at most the budget (%d MiB) + %d MiB", kept>>20, allocBudget>>20, slack>>20)
	}
	if ceiling := uint64(2 * (allocBudget + slack)); growth > ceiling {
		t.Errorf("the heap in use grew by %d MiB at its peak; want at most %d MiB", growth>>20, ceiling>>20)
	}
	t.Logf("stopped after %v; kept %d MiB; heap peak +%d MiB; %d bystander calls", elapsed, kept>>20, growth>>20, len(probes))
	if len(probes) == 0 {
		t.Error("the bystander made no call while the hog ran")
	}
	for i, perr := range probes {
		if perr != nil {
			t.Errorf("bystander call %d: %v", i, perr)
		}
	}
	if out, err := h.call("kept", `{}`); err != nil || out == "0" {
		t.Errorf("the hog's mount does not serve after its stop: %s, %v", out, err)
	}
	if out, err := h.call("probe", `{}`); err != nil || out != `"ok"` {
		t.Errorf("the bystander after the stop: %s, %v", out, err)
	}
}

func sub(a, b uint64) uint64 { return a - min(a, b) }

// TestAllocUnderBudgetIsNotStopped pins what the budget lets through: one call that keeps
// most of the budget, again and again (each call is judged alone), and one that makes many
// times the budget in garbage (the collector frees it as it goes, so it is not charged).
func TestAllocUnderBudgetIsNotStopped(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newAllocHost(t, &Timeouts{VM: allocCallBound, Mount: allocCallBound, Call: allocCallBound}, &Limits{MaxEntryAlloc: allocBudget})
	m, f := h.mustMount(`return { name: 'big', apply(ctx) {
		// About 13 MiB kept (40% of the budget): each { i, a: [i] } costs goja about 1.1 KB.
		ctx.tools.register({ name: 'keepMuch', description: 'd', execute: () => {
			const a = []
			for (let i = 0; i < 12000; i++) a.push({ i, a: [i] })
			globalThis.kept = a
			return a.length
		} })
		// Four times the budget in garbage, each buffer dead by the next iteration, with
		// some work between buffers: a program that makes garbage faster than a
		// collection completes is charged it (see the package doc, "Memory").
		ctx.tools.register({ name: 'churn', description: 'd', execute: () => {
			let n = 0, x = 0
			for (let j = 0; j < 128; j++) {
				n += new Uint8Array(1 << 20).length >> 20
				for (let k = 0; k < 6000; k++) x += k
			}
			return n
		} })
	} }`)
	defer h.unmount(m, f)
	for i := range 3 {
		live := liveAfterGC()
		a0 := readMetric("/gc/heap/allocs:bytes")
		if out, err := h.call("keepMuch", `{}`); err != nil || out != "12000" {
			t.Fatalf("keepMuch call %d: %s, %v; want 12000", i, out, err)
		}
		allocated := readMetric("/gc/heap/allocs:bytes") - a0
		kept := sub(liveAfterGC(), live)
		t.Logf("keepMuch call %d: allocated %d MiB, kept %d MiB more", i, allocated>>20, kept>>20)
		if allocated < allocBudget/4 {
			t.Errorf("keepMuch allocated %d MiB: too little to show anything", allocated>>20)
		}
	}
	a0 := readMetric("/gc/heap/allocs:bytes")
	start := time.Now()
	if out, err := h.call("churn", `{}`); err != nil || out != "128" {
		t.Fatalf("churn: %s, %v; want 128", out, err)
	}
	if allocated := readMetric("/gc/heap/allocs:bytes") - a0; allocated < 2*allocBudget {
		t.Errorf("churn allocated %d MiB; want at least twice the budget (%d MiB) for the test to mean anything", allocated>>20, 2*allocBudget>>20)
	} else {
		t.Logf("churn allocated %d MiB in %v", allocated>>20, time.Since(start))
	}
}

// TestAllocBoundStopsEvaluation is the red team's case as it was reported: a host half's
// body (the evaluation of mount code, bounded by VMTimeout) that allocates until stopped.
// The mount fails with the budget's error, and what it kept goes with its realm.
func TestAllocBoundStopsEvaluation(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newAllocHost(t, &Timeouts{VM: allocCallBound, Mount: allocCallBound, Call: allocCallBound}, &Limits{MaxEntryAlloc: allocBudget})
	live := liveAfterGC()
	w := watchHeap()
	defer w.growth()
	start := time.Now()
	_, _, err := h.mount(`const keep = []; for (let i = 0; ; i++) keep.push({ i, s: 'item ' + i, a: [i, i + 1] })`)
	var ae *AllocError
	if !errors.As(err, &ae) || ae.What != "evaluation of the mount code" || !strings.Contains(err.Error(), "(Limits.MaxEntryAlloc)") {
		t.Fatalf("mount after %v: %v; want an *AllocError of the evaluation", time.Since(start), err)
	}
	if d := time.Since(start); d > allocCallBound/2 {
		t.Errorf("the evaluation ran %v: its time bound was near", d)
	}
	if kept := sub(liveAfterGC(), live); kept > 8<<20 {
		t.Errorf("%d MiB still live after the failed mount; want its realm's memory freed", kept>>20)
	}
	h.serving()
}

// TestMaxEntryAllocValidate pins the option's validation and default.
func TestMaxEntryAllocValidate(t *testing.T) {
	err := (&Options{Limits: &Limits{MaxEntryAlloc: -1}}).Validate()
	if err == nil || !strings.Contains(err.Error(), "Limits.MaxEntryAlloc is -1: it must be positive, or zero for the default (268435456)") {
		t.Errorf("Validate = %v; want it to name Limits.MaxEntryAlloc", err)
	}
	sb := New(nil)
	defer sb.Close(t.Context())
	if got := sb.Limits().MaxEntryAlloc; got != 256<<20 {
		t.Errorf("default MaxEntryAlloc = %d; want %d (256 MiB, as documented)", got, 256<<20)
	}
}

// TestByteSize pins the sizes errors name.
func TestByteSize(t *testing.T) {
	for n, want := range map[int]string{100: "100 bytes", 512 << 10: "512 KiB", 256 << 20: "256 MiB", 3 << 29: "1.5 GiB", 1<<20 + 1<<19: "1.5 MiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

package sandbox

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// emitTimeouts gives a CallTimeout long enough that waiting for it is plain to see.
var emitTimeouts = &Timeouts{VM: 300 * time.Millisecond, Mount: 300 * time.Millisecond, Call: 300 * time.Millisecond}

// hostErrors records what Options.OnError receives.
type hostErrors struct {
	mu   sync.Mutex
	errs []string
}

func (h *hostErrors) add(mount string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.errs = append(h.errs, mount+" | "+err.Error())
}

// count returns how many reports contain sub.
func (h *hostErrors) count(sub string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, e := range h.errs {
		if strings.Contains(e, sub) {
			n++
		}
	}
	return n
}

func (h *hostErrors) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.errs, "\n")
}

// newReportingHost is newHost with Options.OnError recorded.
func newReportingHost(t *testing.T, timeouts *Timeouts) (*host, *hostErrors) {
	t.Helper()
	h := newHost(t, timeouts)
	he := &hostErrors{}
	// Replace the sandbox before anything is mounted; the old one has no realm to close.
	if err := h.sb.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.sb = New(&Options{Facade: testFacade, Timeouts: timeouts, Logger: h.root.Logger(), OnError: he.add})
	return h, he
}

// linesWith counts the lines of log that contain sub.
func linesWith(log, sub string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, sub) {
			n++
		}
	}
	return n
}

// installEmitBus is installBus for an emit-mode event: emit(x) calls Go through Sync, and
// Go delivers x to every listener with DeliverEmit, inline.
func installEmitBus(r *Realm) {
	var fns []goja.Callable
	set(r, "listen", func(r *Realm) any {
		return r.Func("bus.listen", func(call goja.FunctionCall) goja.Value {
			fns = append(fns, argCallback(r, call, 0, "bus.listen", "fn"))
			return goja.Undefined()
		})
	})
	set(r, "emit", func(r *Realm) any {
		return r.Func("bus.emit", func(call goja.FunctionCall) goja.Value {
			x := argString(r, call, 0, "bus.emit", "x")
			ls := append([]goja.Callable(nil), fns...)
			r.Unlocked(func() {
				for _, fn := range ls {
					r.deliverEmit("a listener of the bus", fn, func() []goja.Value { return []goja.Value{r.rt.ToValue(x)} })
				}
			})
			return goja.Undefined()
		})
	})
}

// emitTick emits bench/tick (an emit-mode event) from Go and returns how long Emit took.
func emitTick(h *host, text string) time.Duration {
	start := time.Now()
	benchTick.Emit(h.root, tickEvent{ID: 1, Text: text})
	return time.Since(start)
}

// A Go Emit of an emit-mode event does not wait for a JavaScript listener's promise: it
// returns once the listener's synchronous part has run, however long the promise takes.
func TestEmitDoesNotAwaitAsyncListener(t *testing.T) {
	h := newHost(t, emitTimeouts)
	m, f := h.mustMount(`return { name: 'slow', inject: ['timer'], apply(ctx) {
		globalThis.started = 0
		globalThis.slept = 0
		ctx.on('bench/tick', async () => { started++; await new Promise(() => {}) })
		ctx.on('bench/tick', async () => { started++; await ctx.sleep(2000); slept++ })
	} }`)
	defer h.unmount(m, f)
	for i := range 2 {
		if d := emitTick(h, "x"); d > emitTimeouts.Call/3 {
			t.Errorf("emit %d took %v: it waited for a listener's promise (CallTimeout %v)", i, d, emitTimeouts.Call)
		}
	}
	if got := h.eval(m, `[started, slept]`); got != `[4,0]` {
		t.Errorf("[started, slept] = %s, want [4,0]: both listeners ran their synchronous part, no sleep ended", got)
	}
}

// The rejection of an emit listener's promise is reported once — logged with the mount id
// and passed to Options.OnError — whether it rejects before the listener returns or
// later, and whether the emit came from Go or from a Go method the mount itself called
// (the realm busy in an outer call).
func TestEmitListenerRejectionReportedOnce(t *testing.T) {
	h, he := newReportingHost(t, emitTimeouts)
	m, f := h.mustMount(`return { name: 'rejects', inject: ['greeter'], apply(ctx) {
		ctx.on('bench/tick', async (id, text) => { throw new Error('early ' + text) })
		ctx.on('bench/tick', async (id, text) => { await null; throw new Error('late ' + text) })
		globalThis.shout = (text) => ctx.greeter.shout(text)
	} }`)
	defer h.unmount(m, f)

	emitTick(h, "from-go")
	h.eval(m, `shout('nested'), 0`)

	for _, msg := range []string{"early from-go", "late from-go", "early nested", "late nested"} {
		if !waitFor(time.Second, func() bool { return he.count(msg) > 0 }) {
			t.Errorf("%q was not passed to OnError; got:\n%s", msg, he)
		}
	}
	time.Sleep(50 * time.Millisecond) // a second report would come by now
	for _, msg := range []string{"early from-go", "late from-go", "early nested", "late nested"} {
		if n := he.count(msg); n != 1 {
			t.Errorf("%q reported %d times, want once:\n%s", msg, n, he)
		}
		if n := linesWith(h.log.String(), msg); n != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", msg, n, h.log)
		}
	}
	if n := he.count("dyn-1 | "); n != 4 {
		t.Errorf("%d reports name mount dyn-1, want 4:\n%s", n, he)
	}
	if !strings.Contains(he.String(), `a listener of "bench/tick"`) {
		t.Errorf("the reports do not say which listener failed:\n%s", he)
	}
	if !strings.Contains(h.log.String(), "mount=dyn-1") {
		t.Errorf("the log does not name the mount:\n%s", h.log)
	}
	if strings.Contains(h.log.String(), "unhandled promise rejection") {
		t.Errorf("a listener's rejection was also reported as unhandled:\n%s", h.log)
	}
}

// A listener that throws synchronously is reported once too, and so is one that runs past
// CallTimeout; three in a row of the latter remove it (the strike-out bounds the
// synchronous part, which every emit still runs).
func TestEmitListenerSyncFailures(t *testing.T) {
	timeouts := &Timeouts{VM: 100 * time.Millisecond, Mount: 100 * time.Millisecond, Call: 100 * time.Millisecond}
	h, he := newReportingHost(t, timeouts)
	m, f := h.mustMount(`return { name: 'bad', apply(ctx) {
		globalThis.spins = 0
		ctx.on('bench/tick', (id, text) => { if (text === 'throw') throw new Error('sync boom') })
		ctx.on('bench/tick', (id, text) => { if (text === 'spin') { spins++; for (;;) {} } })
	} }`)
	defer h.unmount(m, f)

	emitTick(h, "throw")
	if n := he.count("sync boom"); n != 1 {
		t.Errorf("a synchronous throw reported %d times, want once:\n%s", n, he)
	}
	for i := range 3 {
		if d := emitTick(h, "spin"); d < timeouts.Call {
			t.Errorf("spin %d: emit returned after %v, before the listener's bound", i, d)
		}
	}
	if d := emitTick(h, "spin"); d > timeouts.Call/2 {
		t.Errorf("the fourth spin took %v: the listener was not removed", d)
	}
	if got := h.eval(m, `spins`); got != "3" {
		t.Errorf("spins = %s, want 3", got)
	}
	if n := he.count("ran longer than CallTimeout (100ms) and was interrupted"); n != 3 {
		t.Errorf("%d timeouts reported, want 3:\n%s", n, he)
	}
	if n := he.count("3 times in a row and was removed"); n != 1 {
		t.Errorf("the removal was reported %d times, want once:\n%s", n, he)
	}
}

// Awaited modes still wait for a listener's promise: a parallel Emit returns after the
// listener's await has ended, and one whose promise never settles fails at CallTimeout.
func TestParallelStillAwaitsListener(t *testing.T) {
	h := newHost(t, emitTimeouts)
	m, f := h.mustMount(`return { name: 'awaited', inject: ['timer'], apply(ctx) {
		globalThis.done = 0
		ctx.on('test/ask', async (q) => {
			if (q === 'hang') return new Promise(() => {})
			await ctx.sleep(60); done++
		})
	} }`)
	defer h.unmount(m, f)
	start := time.Now()
	if err := testAsk.Emit(context.Background(), h.root, askEvent{Question: "sleep"}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 60*time.Millisecond {
		t.Errorf("a parallel emit returned after %v, before the listener's 60ms await", d)
	}
	if got := h.eval(m, `done`); got != "1" {
		t.Errorf("done = %s right after the emit, want 1", got)
	}
	start = time.Now()
	err := testAsk.Emit(context.Background(), h.root, askEvent{Question: "hang"})
	if err == nil || !strings.Contains(err.Error(), "did not settle") {
		t.Errorf("a parallel emit of a listener that never settles: %v, want its bound's error", err)
	}
	if d := time.Since(start); d < emitTimeouts.Call*9/10 {
		t.Errorf("it returned after %v, before CallTimeout", d)
	}
}

// Many async emit listeners that reject share the mount's report budget with unhandled
// rejections: past Limits.MaxRejectionReports they are counted and summarized.
func TestEmitRejectionsShareTheReportBudget(t *testing.T) {
	h, he := newReportingHost(t, emitTimeouts)
	m, f := h.mustMount(`return { name: 'storm', apply(ctx) {
		ctx.on('bench/tick', async (id, text) => { throw new Error('storm ' + text) })
	} }`)
	defer h.unmount(m, f)
	const n = 300
	for i := range n {
		emitTick(h, fmt.Sprint(i))
	}
	if got, want := he.count("storm "), DefaultMaxRejectionReports; got != want {
		t.Errorf("%d rejections reported one by one, want the budget of %d", got, want)
	}
	if he.count("were not reported") == 0 {
		t.Errorf("no summary of the rejections past the budget:\n%.2000s", he)
	}
}

// Nobody awaits an emit listener's promise, but its pending work is still bounded: a
// listener whose promise takes longer than CallTimeout three runs in a row is removed, so
// events cannot pile up unsettled work in a mount.
func TestEmitListenerSlowPromiseStrikesOut(t *testing.T) {
	timeouts := &Timeouts{VM: 100 * time.Millisecond, Mount: 100 * time.Millisecond, Call: 50 * time.Millisecond}
	h, he := newReportingHost(t, timeouts)
	m, f := h.mustMount(`return { name: 'hangs', apply(ctx) {
		globalThis.runs = 0
		ctx.on('bench/tick', () => { runs++; return new Promise(() => {}) })
	} }`)
	defer h.unmount(m, f)
	for i := range 5 {
		if d := emitTick(h, "x"); d > timeouts.Call/2 {
			t.Errorf("emit %d took %v", i, d)
		}
		time.Sleep(timeouts.Call + 15*time.Millisecond)
	}
	if got := h.eval(m, `runs`); got != "3" {
		t.Errorf("runs = %s, want 3: its three overdue promises, judged when it is next called, removed it", got)
	}
	if n := he.count(`the listener of "bench/tick" returned a promise that did not settle within CallTimeout (50ms) 3 times in a row and was removed`); n != 1 {
		t.Errorf("removal reported %d times, want once:\n%s", n, he)
	}
}

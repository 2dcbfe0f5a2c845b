package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
)

const handlersCapText = "handlers, the most one run may hold (runner.Options.MaxHandlersPerRun); register fewer methods and dispatch on the arguments inside one handler, or call the disposer of a handler you no longer need before registering another"

// A half that registers past its run's cap is refused with a TypeError that names the
// bound and the way out; a method registered again after its disposer takes its old
// slot (it counts once), and registering one name over and over never fills the table.
func TestHandlersPerRunCap(t *testing.T) {
	h, root := newTestHost(t)
	h.SetMaxHandlersPerRun(4)
	run, err := startHost(t, h, root, `
const out = [];
harness.handle('report', () => out);
const off = [];
for (let i = 0; i < 3; i++) off.push(harness.handle('m' + i, () => i));
const attempt = (m) => { try { harness.handle(m, () => m); out.push(m + ' registered') } catch (e) { out.push(e instanceof TypeError ? String(e) : 'not a TypeError: ' + e) } };
attempt('m3');
off[0]();
attempt('m0');
attempt('m3');
for (let k = 0; k < 1000; k++) { off[1](); off[1] = harness.handle('m1', () => k) }
attempt('m4');
return () => {}`)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop(context.Background())
	if got, want := run.Handlers(context.Background()), []string{"m0", "m1", "m2", "report"}; !slices.Equal(got, want) {
		t.Fatalf("Handlers = %v, want %v", got, want)
	}
	out, err := run.Invoke(context.Background(), "report", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	refusal := func(m string) string {
		return fmt.Sprintf("TypeError: harness.handle(%q): this run holds 4 %s", m, handlersCapText)
	}
	want := []string{refusal("m3"), "m0 registered", refusal("m3"), refusal("m4")}
	if !slices.Equal(got, want) {
		t.Fatalf("the half saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A half that registers in an endless loop (the red team's million registrations) fails
// at the cap with the cap's message, long before any time bound, and leaves nothing.
func TestHandlersPerRunCapEndsARunawayHalf(t *testing.T) {
	h, root := newTestHost(t)
	run, err := startHost(t, h, root, `for (let i = 0; ; i++) harness.handle('m' + i, () => i)`)
	if err == nil {
		run.Stop(context.Background())
		t.Fatal("a half registering without end started")
	}
	if want := fmt.Sprintf(`harness.handle("m%d"): this run holds %d %s`, DefaultMaxHandlersPerRun, DefaultMaxHandlersPerRun, handlersCapText); !strings.Contains(err.Error(), want) {
		t.Fatalf("Start = %v\nwant it to contain %s", err, want)
	}
}

// Each run has its own table: a run at its cap leaves another run's registrations alone,
// and a run that stopped gives its slots back (the next run of the same code starts).
func TestHandlersPerRunCapIsPerRun(t *testing.T) {
	h, root := newTestHost(t)
	h.SetMaxHandlersPerRun(2)
	full := `harness.handle('a', () => 1); harness.handle('b', () => 2); return () => {}`
	first, err := startHost(t, h, root, full)
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.Start(context.Background(), root, HostSpec{PluginID: "other-2", PackageID: "pkg-2", PluginRunID: "run-2", Code: full})
	if err != nil {
		t.Fatalf("a second run at its own cap: %v", err)
	}
	defer second.Stop(context.Background())
	if err := first.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	again, err := startHost(t, h, root, full)
	if err != nil {
		t.Fatalf("the same code after its run stopped: %v", err)
	}
	defer again.Stop(context.Background())
	if got := second.Handlers(context.Background()); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("the other run's handlers = %v", got)
	}
}

// The red team's flood — registrations without end, each under a new name — no longer
// grows the process: past the cap every call throws, and a half that swallows the throws
// holds the cap's worth of handlers. After 100,000 registrations the heap in use,
// measured after a collection, is where it was (without the cap a million took the
// process from 22 MB to 960 MB).
func TestHandlersFloodKeepsTheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 100,000 registrations")
	}
	root := kit.New(nil)
	h := NewSandboxHost(&sandbox.Options{Timeouts: &sandbox.Timeouts{VM: time.Minute, Mount: time.Minute, Call: time.Minute}})
	t.Cleanup(func() {
		ctx := context.Background()
		root.Fiber().Dispose(ctx)
		h.Close(ctx)
	})
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	before := heap()
	start := time.Now()
	run, err := startHost(t, h, root, `
for (let i = 0; i < 1e5; i++) { try { harness.handle('m' + i, () => i) } catch (e) {} }
return () => {}`)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop(context.Background())
	after := heap()
	if n := len(run.Handlers(context.Background())); n != DefaultMaxHandlersPerRun {
		t.Fatalf("the run holds %d handlers; want the cap, %d", n, DefaultMaxHandlersPerRun)
	}
	grew := int64(after) - int64(before)
	t.Logf("100,000 registrations in %v: heap in use %d MB → %d MB", time.Since(start).Round(time.Millisecond), before>>20, after>>20)
	if grew > 32<<20 {
		t.Fatalf("the heap in use grew by %d MB over the flood", grew>>20)
	}
}

package toolset_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

var storm = flag.Bool("storm", false, "run the 30 s storm (default: about 1 s)")

// TestStorm runs 16 goroutines mounting, unmounting, registering tools (firing tools/change
// to a listener), calling tools and a cross-mount service at once; afterwards the services,
// plugins and tools are exactly as before the storm.
func TestStorm(t *testing.T) {
	d := time.Second
	if *storm && !testing.Short() {
		d = 30 * time.Second
	}
	h := newHarnessOpts(t, &toolset.Options{Timeouts: &sandbox.Timeouts{VM: time.Second, Mount: 2 * time.Second, Call: time.Second}})
	h.mount(canaryCode)
	provider := h.mount(`return { name: 'storm-provider', apply(ctx) {
		let n = 0
		ctx.provide('stormsvc', { bump: () => ++n, read: () => n })
		ctx.on('tools/change', () => { n++ })
	} }`)
	before := h.runtimeState()

	var mounts, unmounts, calls, failures atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			ctx := context.Background()
			for i := 0; time.Now().Before(deadline); i++ {
				name := fmt.Sprintf("storm_%d_%d", g, i)
				code := fmt.Sprintf(`return { name: %q, inject: ['stormsvc'], apply(ctx) {
					ctx.on('tools/change', (tool) => { if (tool === 'never') throw new Error('x') })
					ctx.tools.register({ name: %q, description: 'd', parameters: { type: 'object' }, execute: () => ctx.stormsvc.bump() })
				} }`, name, name)
				in, _ := json.Marshal(map[string]string{"code": code})
				out, err := h.tools.Call(ctx, "cordis_mount", in)
				if err != nil {
					failures.Add(1)
					t.Errorf("mount: %v", err)
					return
				}
				mounts.Add(1)
				var m mountOut
				_ = json.Unmarshal(out, &m)
				for _, tool := range []string{name, "canary_probe"} {
					if _, err := h.tools.Call(ctx, tool, json.RawMessage(`{}`)); err != nil {
						failures.Add(1)
						t.Errorf("%s: %v", tool, err)
					}
					calls.Add(1)
				}
				if _, err := h.tools.Call(ctx, "cordis_inspect", json.RawMessage(`{"what":"temporary"}`)); err != nil {
					t.Errorf("inspect: %v", err)
				}
				calls.Add(1)
				in, _ = json.Marshal(map[string]string{"id": m.ID})
				if _, err := h.tools.Call(ctx, "cordis_unmount", in); err != nil {
					failures.Add(1)
					t.Errorf("unmount: %v", err)
				}
				unmounts.Add(1)
			}
		})
	}
	wg.Wait()
	if after := h.runtimeState(); after != before {
		t.Fatalf("the storm changed the runtime:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	h.checkCanary()
	h.mustCall("cordis_unmount", map[string]string{"id": provider.ID})
	t.Logf("storm: %v, 16 goroutines, %d mounts, %d unmounts, %d tool calls, %d failures", d, mounts.Load(), unmounts.Load(), calls.Load(), failures.Load())
}

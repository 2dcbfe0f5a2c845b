package main

import (
	"context"
	"runtime"
	"testing"
)

// bootIn boots a harness in work (and a fresh state directory), closed when the test ends.
func bootIn(t *testing.T, work string) *harness {
	t.Helper()
	h, err := boot(work, t.TempDir(), quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return h
}

// An unmounted mount's realm is not kept reachable: what it allocated is collected at
// once, while other mounts (with listeners on the same event) live on, not only after
// later mounts come and go.
func TestUnmountReleasesTheRealm(t *testing.T) {
	h := bootTest(t)
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	id := h.mustMount(t, `globalThis.ballast = new ArrayBuffer(64 << 20)
		return { name: 'ballast', apply(ctx) { ctx.on('agent/turn-start', () => globalThis.ballast.length) } }`)
	h.mustMount(t, `return { name: 'stays', apply(ctx) {
		for (let i = 0; i < 3; i++) ctx.on('agent/turn-start', () => i)
	} }`)
	if grown := heap(); grown < before+48<<20 {
		t.Fatalf("the ballast did not show: heap %d MiB before, %d MiB after", before>>20, grown>>20)
	}
	if _, err := h.callTool(t, "cordis_unmount", map[string]string{"id": id}); err != nil {
		t.Fatal(err)
	}
	if after := heap(); after > before+16<<20 {
		t.Errorf("the unmounted realm is still reachable: heap %d MiB before the mount, %d MiB after the unmount", before>>20, after>>20)
	}
}

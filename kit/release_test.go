package kit_test

import (
	"context"
	"runtime"
	"testing"
	"weak"

	"github.com/cordiskit/cordiskit/kit"
)

// A disposed fiber's listeners and plugin are not kept reachable by the runtime while
// other fibers live on: not by the hub's dead entries (compacted only once half are dead),
// nor by the parent's done effect (compacted in bulk).
func TestDisposeReleasesWhatThePluginHeld(t *testing.T) {
	root := newRoot(t, nil)
	for range 3 { // live listeners, so the hub does not compact the dead one away
		listen(t, root, "stays", func(c *kit.Context) error {
			_, err := tick.On(c, func(int) {})
			return err
		})
	}
	ballast := new([1 << 20]byte)
	held := weak.Make(ballast)
	f := root.Plugin(holder(ballast))
	mustState(t, f, kit.StateActive)
	ballast = nil
	if err := f.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	if held.Value() != nil {
		t.Fatal("the disposed plugin's listener (and what it closes over) is still reachable")
	}
	tick.Emit(root, 1) // the hub still works around the dead entry
}

// holder is a plugin whose apply and listener both hold b.
func holder(b *[1 << 20]byte) *kit.Plugin {
	return plugin("holder", nil, func(c *kit.Context) error {
		_, err := tick.On(c, func(int) { _ = b[0] })
		return err
	})
}

package toolset_test

import (
	"context"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

// gate stands in for a runtime's tools/pre-execute: it returns who decided.
var gate = kit.NewWaterfall[string, string]("test/gate")

// A listener under the toolset's mount group does not see control-tool calls through
// GateContext; the runtime's own listener and calls of other tools are unaffected.
func TestGateContextPassesOverMountListeners(t *testing.T) {
	h := newHarness(t)
	var group *kit.Fiber
	for _, f := range h.ts.Fiber().Children() {
		if f.Name() == "cordis-dynamic" {
			group = f
		}
	}
	if group == nil {
		t.Fatal("no cordis-dynamic group")
	}
	veto := func(who string) func(*kit.Context) error {
		return func(c *kit.Context) error {
			_, err := gate.On(c, func(ctx context.Context, tool string, next func() (string, error)) (string, error) {
				r, err := next()
				return who + ">" + r, err
			})
			return err
		}
	}
	for _, f := range []*kit.Fiber{
		h.root.Plugin(&kit.Plugin{Name: "runtime-policy", Apply: veto("runtime")}),
		group.Context().Plugin(&kit.Plugin{Name: "mount-like", Apply: veto("mount")}),
	} {
		if err := f.Err(); err != nil {
			t.Fatal(err)
		}
	}
	for tool, want := range map[string]string{
		"cordis_unmount": "runtime>allow",
		"cordis_mount":   "runtime>allow",
		"cordis_inspect": "runtime>allow",
		"cordis_run":     "runtime>allow",
		"cordis_stop":    "runtime>allow",
		"canary_probe":   "runtime>mount>allow",
	} {
		got, err := gate.Emit(h.ts.GateContext(context.Background(), tool), h.root, tool, func() (string, error) { return "allow", nil })
		if got != want || err != nil {
			t.Errorf("%s: gate = %q, %v; want %q", tool, got, err, want)
		}
	}
}

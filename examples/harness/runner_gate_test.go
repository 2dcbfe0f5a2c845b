package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Whatever a host half's tools/pre-execute listener does — and whatever a mount's does —
// the model can still inspect, stop and undefine the dynamic Plugin, and define and run
// another, promptly: the seven are control tools, shielded from both.
func TestHostHalfGateCannotLockOutTheControlTools(t *testing.T) {
	for name, code := range hostileGates {
		t.Run(name, func(t *testing.T) {
			h := bootTest(t)
			define := func(prefix, code string) {
				t.Helper()
				out, err := h.callTool(t, "cordis_define", map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": prefix},
					"name": prefix, "purpose": "A gate test.", "code": map[string]string{"host": code}})
				if err != nil {
					t.Fatalf("cordis_define: %v", err)
				}
				var d struct{ PluginID, PackageID string }
				_ = json.Unmarshal([]byte(out), &d)
				if out, err := h.callTool(t, "cordis_run", map[string]string{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"}); err != nil || !strings.Contains(out, `"status":"running"`) {
					t.Fatalf("cordis_run %s: %s, %v", d.PluginID, out, err)
				}
			}
			define("jail", code) // jail-1, its host half gating every call
			h.mustMount(t, code) // and a mount doing the same
			start := time.Now()
			define("mine", `return { name: 'mine', apply() {} }`) // mine-2
			out, err := h.callTool(t, "cordis_inspect_self", map[string]string{})
			if err != nil || !strings.Contains(out, `"pluginId":"jail-1"`) || !strings.Contains(out, `"pluginId":"mine-2"`) {
				t.Fatalf("cordis_inspect_self under the listeners: %s, %v", out, err)
			}
			if _, err := h.callTool(t, "cordis_stop", map[string]string{"pluginId": "jail-1"}); err != nil {
				t.Fatalf("cordis_stop: %v", err)
			}
			if out, err := h.callTool(t, "cordis_undefine", map[string]string{"pluginId": "jail-1"}); err != nil || !strings.Contains(out, `"pluginId":"jail-1"`) {
				t.Fatalf("cordis_undefine: %s, %v", out, err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("the control tools took %v under the listeners", d)
			}
		})
	}
}

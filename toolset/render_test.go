package toolset

import (
	"testing"

	"github.com/cordiskit/cordiskit/tooldecl/cordis"
)

func TestRenderers(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{RenderMount(cordis.MountOutput{ID: "dyn-3", PluginName: "echo", State: cordis.StateActive}),
			`Temporary Plugin dyn-3 is running (plugin "echo"; available until unmounted or the process restarts).`},
		{RenderMount(cordis.MountOutput{ID: "dyn-2", PluginName: "consumer", State: cordis.StatePending, WaitingFor: []string{"greeter", "kv"}}),
			`Temporary Plugin dyn-2 is pending (plugin "consumer"; missing services: greeter, kv; available until unmounted or the process restarts).`},
		{RenderUnmount(cordis.UnmountOutput{ID: "dyn-1", PluginName: "x"}), `Temporary Plugin dyn-1 was unmounted and removed.`},
		{Title("cordis_inspect", nil), "Inspect cordis runtime"},
		{Title("cordis_inspect", map[string]string{"what": "api", "name": "fs"}), "Inspect cordis runtime: api: fs"},
		{Title("cordis_mount", nil), "Mount temporary Cordis Plugin"},
		{Title("cordis_unmount", map[string]string{"id": "dyn-4"}), "Unmount temporary Cordis Plugin dyn-4"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
}

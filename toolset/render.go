package toolset

import (
	"fmt"
	"strings"

	"github.com/cordiskit/cordiskit/tooldecl/cordis"
)

// The renderers turn a tool's arguments or result into the short text a person (or a
// transcript) shows. They are pure functions of their input: no I/O, no clock, no state,
// so they also work when replaying a session.

const lifetime = "available until unmounted or the process restarts"

// RenderMount renders a cordis_mount result. It keys off waitingFor, which lists only
// required services that are missing, so "pending" is never printed for a running plugin.
func RenderMount(out cordis.MountOutput) string {
	if len(out.WaitingFor) == 0 {
		return fmt.Sprintf("Temporary Plugin %s is running (plugin %q; %s).", out.ID, out.PluginName, lifetime)
	}
	return fmt.Sprintf("Temporary Plugin %s is pending (plugin %q; missing services: %s; %s).",
		out.ID, out.PluginName, strings.Join(out.WaitingFor, ", "), lifetime)
}

// RenderUnmount renders a cordis_unmount result.
func RenderUnmount(out cordis.UnmountOutput) string {
	return fmt.Sprintf("Temporary Plugin %s was unmounted and removed.", out.ID)
}

// Title returns the one-line title of a call, for a transcript or a UI card.
func Title(tool string, args map[string]string) string {
	switch tool {
	case cordis.Inspect.Name():
		t := "Inspect cordis runtime"
		if w := args["what"]; w != "" {
			t += ": " + w
		}
		if n := args["name"]; n != "" {
			t += ": " + n
		}
		return t
	case cordis.Mount.Name():
		return "Mount temporary Cordis Plugin"
	case cordis.Unmount.Name():
		return "Unmount temporary Cordis Plugin " + args["id"]
	}
	return tool
}

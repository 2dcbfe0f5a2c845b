package runner

import (
	"encoding/json"
	"fmt"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// Title returns the one-line title of a call of one of the seven tools, for a transcript
// or a UI card (docs/dynamic-plugins.md, "The seven tools"); "" for any other tool. It is
// a pure function of the arguments.
func Title(tool string, args json.RawMessage) string {
	var a struct {
		dynamic.DefineInput
		PluginID  string `json:"pluginId"`
		PackageID string `json:"packageId"`
		Mode      string `json:"mode"`
		Platform  string `json:"platform"`
		Provider  string `json:"provider"`
		Method    string `json:"method"`
	}
	_ = json.Unmarshal(args, &a)
	switch tool {
	case dynamic.InspectList.Name():
		return "List Cordis Inspect Providers"
	case dynamic.InspectQuery.Name():
		return fmt.Sprintf("Query Cordis %s %s.%s", a.Platform, a.Provider, a.Method)
	case dynamic.InspectSelf.Name():
		switch {
		case a.PluginID == "":
			return "Inspect dynamic Cordis Plugins"
		case a.PackageID == "":
			return "Inspect " + a.PluginID
		}
		return "Inspect " + a.PluginID + "/" + a.PackageID
	case dynamic.Define.Name():
		target := a.Plugin.PluginID
		if a.Plugin.Kind == dynamic.TargetNew {
			target = "new " + a.Plugin.IDPrefix + "-*"
		}
		return fmt.Sprintf("Register Cordis Plugin %q for %s: %s", a.Name, target, a.Purpose)
	case dynamic.Run.Name():
		verb := "Run"
		if a.Mode == string(dynamic.ModeUpdate) {
			verb = "Update"
		}
		return fmt.Sprintf("%s Cordis Plugin %s · %s", verb, a.PluginID, a.PackageID)
	case dynamic.Stop.Name():
		return "Stop Cordis Plugin " + a.PluginID
	case dynamic.Undefine.Name():
		return "Remove Cordis Plugin " + a.PluginID
	}
	return ""
}

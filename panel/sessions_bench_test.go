package panel

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkForeignVersusMissing is what bob's page pays to be told that alice's Plugin
// does not exist, beside a Plugin that does not: the handler's whole path (token, scope,
// decode, the ownership check, the answer) without the network, whose jitter would hide
// the difference. The two must not be told apart by time either; compare the pairs
// (-count 10 and benchstat).
func BenchmarkForeignVersusMissing(b *testing.B) {
	e := newPeopleEnv(b, nil)
	op := e.stream("")
	op.next()
	alice := e.hold("alice", op)
	ghost := alice.running.PluginID[:strings.LastIndex(alice.running.PluginID, "-")] + "-999"
	for _, verb := range []string{"invoke", "getClientCode", "stopFromPanel"} {
		for _, target := range []struct{ name, id string }{{"foreign", alice.running.PluginID}, {"missing", ghost}} {
			args, _ := json.Marshal(map[string]any{"pluginId": target.id, "pluginRunId": alice.runID, "capability": alice.capability, "method": "now"})
			if verb != "invoke" {
				args, _ = json.Marshal(map[string]any{"session": "alice", "pluginId": target.id, "pluginRunId": alice.runID})
				if verb == "stopFromPanel" {
					args, _ = json.Marshal(map[string]any{"session": "alice", "pluginId": target.id})
				}
			}
			b.Run(verb+"/"+target.name, func(b *testing.B) {
				for b.Loop() {
					req := httptest.NewRequest("POST", "/rpc/"+verb, strings.NewReader(string(args)))
					req.RemoteAddr = "127.0.0.1:1"
					req.Header.Set("Authorization", "Bearer "+bobToken)
					w := httptest.NewRecorder()
					e.h.ServeHTTP(w, req)
					if w.Code != 200 || strings.Contains(w.Body.String(), `"ok":true`) {
						b.Fatalf("%s of %s = %d %s", verb, target.id, w.Code, w.Body)
					}
				}
			})
		}
	}
}

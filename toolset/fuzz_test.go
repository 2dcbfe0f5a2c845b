package toolset_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// fuzzOptions are tiny bounds, so no input can hang the host.
func fuzzOptions() *toolset.Options {
	return &toolset.Options{Timeouts: &sandbox.Timeouts{VM: 50 * time.Millisecond, Mount: 80 * time.Millisecond, Call: 50 * time.Millisecond}}
}

// FuzzMountCode mounts arbitrary code next to the canary: cordis_mount returns (a mount or
// an error), never panics or hangs, and afterwards the canary and inspect still work.
func FuzzMountCode(f *testing.F) {
	for _, s := range []string{
		"return (ctx) => {}",
		"return {",
		"while (true) {}",
		"return { name: 'x', apply(ctx) { ctx.tools.register({ name: 'fz', description: 'd', parameters: { type: 'object' }, execute: () => 1 }) } }",
		"return { name: 'x', inject: ['canarysvc'], apply(ctx) { ctx.canarysvc.config.mode = 1 } }",
		"Object.prototype.polluted = 1; return (ctx) => { ctx.root }",
	} {
		f.Add(s)
	}
	h := newHarnessOpts(f, fuzzOptions())
	in, _ := json.Marshal(map[string]string{"code": canaryCode})
	if _, err := h.tools.Call(context.Background(), "cordis_mount", in); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, code string) {
		h.t = t
		in, _ := json.Marshal(map[string]string{"code": code})
		out, err := h.tools.Call(context.Background(), "cordis_mount", in)
		if err == nil {
			var m mountOut
			if err := json.Unmarshal(out, &m); err != nil || !strings.HasPrefix(m.ID, "dyn-") {
				t.Fatalf("mount result %s: %v", out, err)
			}
			h.mustCall("cordis_unmount", map[string]string{"id": m.ID})
		} else if err.Error() == "" {
			t.Fatal("empty error")
		}
		h.checkCanary()
		h.inspect("temporary", "")
	})
}

// FuzzToolInputs sends arbitrary JSON to the three tools: each returns a result or an
// error, never panics or hangs, and the toolset keeps working.
func FuzzToolInputs(f *testing.F) {
	for _, s := range []struct {
		tool uint8
		in   string
	}{
		{0, `{}`}, {0, `{"what":"api","name":"timer"}`}, {0, `{"what":"bogus"}`}, {0, `{"name":"tools"}`}, {0, `null`},
		{1, `{"code":"return (ctx) => {}"}`}, {1, `{"code":""}`}, {1, `{"code":42}`}, {1, `[]`},
		{2, `{"id":"dyn-1"}`}, {2, `{"id":""}`}, {2, `{"id":null,"extra":1}`}, {2, `not json`},
	} {
		f.Add(s.tool, s.in)
	}
	names := []string{"cordis_inspect", "cordis_mount", "cordis_unmount"}
	h := newHarnessOpts(f, fuzzOptions())
	f.Fuzz(func(t *testing.T, tool uint8, in string) {
		h.t = t
		name := names[int(tool)%len(names)]
		out, err := h.tools.Call(context.Background(), name, json.RawMessage(in))
		if err == nil && name == "cordis_mount" {
			var m mountOut
			if err := json.Unmarshal(out, &m); err == nil && m.ID != "" {
				h.mustCall("cordis_unmount", map[string]string{"id": m.ID})
			}
		}
		h.inspect("", "")
		m := h.mount("return (ctx) => {}")
		h.mustCall("cordis_unmount", map[string]string{"id": m.ID})
	})
}

package runner

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// subHost is a host half with a handler and a tool other than toolHost's clock_add.
const subHost = `harness.handle('now', () => 43);
const sub = harness.defineTool({
  name: 'clock_sub',
  description: 'Subtracts two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  execute: (args) => ({ diff: args.a - args.b }),
});
return { name: 'clock', apply(ctx) { harness.registerTool(ctx, sub)%s } }`

// addHost is toolHost (clock_add returning v) with a handler "now".
func addHost(v string) string { return "harness.handle('now', () => 42);\n" + fmt.Sprintf(toolHost, v) }

// docs/dynamic-plugins.md, "Activation": an update whose new host half fails — on load, or
// in apply after it registered a tool of its own — started beside the working run, so the
// working run keeps running (its handler answers, its tool stays registered), the model is
// told so, currentPackageId stays the old Package and the Plugin reads running with the
// failed attempt as its latest run.
func TestFailedUpdateKeepsTheWorkingRun(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"fails on load", "throw new Error('broken')",
			`the host half of clock-1/pkg-2 (run-2) failed to start: clock-1: Error: broken. The working run run-1 (pkg-1) of clock-1 keeps running: the new half was started beside it, and nothing was stopped. Fix the code, cordis_define a new Package on the same Plugin (plugin:{kind:"existing", pluginId:"clock-1"}) and cordis_run it.`},
		{"fails in apply", fmt.Sprintf(subHost, "; throw new Error('apply broke')"), "Error: apply broke"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := newToolEnv(t)
			e, ctx := te.e, as("s1")
			d1 := e.define(newPlugin("clock"), addHost("1"), "")
			if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d1.PackageID, Mode: dynamic.ModeRun}); err != nil {
				t.Fatal(err)
			}
			runID, capa, _ := e.r.RunCapability(ctx, d1.PluginID)
			d2 := e.define(existing(d1.PluginID), tt.code, "")
			e.takeEvents()
			_, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d2.PackageID, Mode: dynamic.ModeUpdate})
			const kept = "The working run run-1 (pkg-1) of clock-1 keeps running: the new half was started beside it, and nothing was stopped."
			if err == nil || ReasonOf(err) != ReasonHostHalfFailed || !strings.HasPrefix(err.Error(), "the host half of clock-1/pkg-2 (run-2) failed to start: ") ||
				!strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), kept) || strings.Contains(err.Error(), "Nothing of clock-1 is running") {
				t.Fatalf("failed update = %v; want %s, the failed half named and %q", err, ReasonHostHalfFailed, kept)
			}
			if ev := e.takeEvents(); len(ev) != 0 {
				t.Fatalf("a failed update emitted %v; want nothing retracted or announced", ev)
			}
			if res, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d1.PluginID, PluginRunID: runID, Capability: capa, Method: "now"}); err != nil || string(res) != "42" {
				t.Fatalf("Invoke of the working run after the failed update = %s, %v", res, err)
			}
			if out, err := te.call("clock_add", `{"a":1,"b":2}`); out != `{"sum":3,"v":1}` || err != "" {
				t.Fatalf("clock_add after the failed update = %s, %q; want the working run's {\"sum\":3,\"v\":1}", out, err)
			}
			if te.registered("clock_sub") {
				t.Fatal("the failed half's clock_sub is registered")
			}
			p := e.plugin(d1.PluginID)
			if p.Current != d1.PackageID || p.Next != d2.PackageID || !p.Running || p.Latest.Status != dynamic.RunFailed {
				t.Fatalf("after the failed update: current %s next %s running %v latest %+v", p.Current, p.Next, p.Running, p.Latest)
			}
			s, _ := e.inspectPlugin(ctx, d1.PluginID)
			if s.State != "running" || s.ActiveRun == nil || s.ActiveRun.PluginRunID != runID || s.CurrentPackageID != d1.PackageID ||
				s.LatestRun == nil || s.LatestRun.PluginRunID != "run-2" || s.LatestRun.Error == nil || s.LatestRun.Error.Message != err.Error() {
				t.Fatalf("inspect after the failed update: %+v", s)
			}
		})
	}
}

// A successful update replaces the working run whatever it holds: a tool the new half does
// not (the new half starts beside it), a service (the old run is retracted first) or a
// tool name the new half registers too (the new half clashes, so the old run is retracted
// and the half started again). The old run is retracted before the new one is announced,
// its id is stale, and only the new half's tool is registered.
func TestUpdateReplacesTheWorkingRun(t *testing.T) {
	tests := []struct{ name, old, new, tool, gone string }{
		{"beside: another tool", addHost("1"), fmt.Sprintf(subHost, ""), "clock_sub", "clock_add"},
		{"provides a service", clockHost, fmt.Sprintf(subHost, ""), "clock_sub", ""},
		{"clashes on a tool name", addHost("1"), addHost("2"), "clock_add", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := newToolEnv(t)
			e, ctx := te.e, as("s1")
			d1 := e.define(newPlugin("clock"), tt.old, "")
			if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d1.PackageID, Mode: dynamic.ModeRun}); err != nil {
				t.Fatal(err)
			}
			oldID, oldCap, _ := e.r.RunCapability(ctx, d1.PluginID)
			d2 := e.define(existing(d1.PluginID), tt.new, "")
			e.takeEvents()
			out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d2.PackageID, Mode: dynamic.ModeUpdate})
			if err != nil || out.Status != "running" || out.PluginRunID != "run-2" || out.CurrentPackageID != d2.PackageID {
				t.Fatalf("update = %+v, %v", out, err)
			}
			if ev := e.takeEvents(); !slices.Equal(ev, []string{"retract clock-1/pkg-1 run-1", "package clock-1/pkg-2 run-2"}) {
				t.Fatalf("update events = %v", ev)
			}
			if _, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d1.PluginID, PluginRunID: oldID, Capability: oldCap, Method: "now"}); !hasCode(err, InvokeStaleRun) {
				t.Fatalf("Invoke of the replaced run = %v", err)
			}
			if !te.registered(tt.tool) {
				t.Fatalf("%s is not registered after the update", tt.tool)
			}
			if tt.gone != "" && te.registered(tt.gone) {
				t.Fatalf("the replaced run's %s is still registered", tt.gone)
			}
			if tt.tool == "clock_add" {
				if out, err := te.call("clock_add", `{"a":2,"b":3}`); out != `{"sum":5,"v":2}` || err != "" {
					t.Fatalf("clock_add after the update = %s, %q; want the new Package's {\"sum\":5,\"v\":2}", out, err)
				}
			}
			if s, _ := e.inspectPlugin(ctx, d1.PluginID); s.State != "running" || s.ActiveRun == nil || s.ActiveRun.PluginRunID != "run-2" {
				t.Fatalf("inspect after the update: %+v", s)
			}
		})
	}
}

// An update to a client-bearing Package that the page declines, and one whose host half
// then fails when the page starts it, both leave the working run running, and say so.
func TestDeclinedUpdateKeepsTheWorkingRun(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as("s1")
	pg := testPage{e}
	d1 := e.define(newPlugin("clock"), "harness.handle('now', () => 42);\nreturn () => {}", "")
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d1.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	runID, capa, _ := e.r.RunCapability(ctx, d1.PluginID)
	alive := func(when string, latest dynamic.RunStatus) {
		t.Helper()
		if res, err := e.r.InvokeFromPanel(ctx, page.InvokeArgs{PluginID: d1.PluginID, PluginRunID: runID, Capability: capa, Method: "now"}); err != nil || string(res) != "42" {
			t.Fatalf("Invoke of the working run after %s = %s, %v", when, res, err)
		}
		if ev := e.takeEvents(); slices.Contains(ev, "retract clock-1/pkg-1 run-1") {
			t.Fatalf("%s retracted the working run: %v", when, ev)
		}
		s, _ := e.inspectPlugin(ctx, d1.PluginID)
		if s.State != "running" || s.ActiveRun == nil || s.ActiveRun.PluginRunID != runID || s.CurrentPackageID != d1.PackageID || s.LatestRun.Status != latest {
			t.Fatalf("inspect after %s: %+v; want running run-1 of pkg-1, the latest run %s", when, s, latest)
		}
	}

	d2 := e.define(existing(d1.PluginID), "harness.handle('now', () => 43);\nreturn () => {}", clientCode)
	if out, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d2.PackageID, Mode: dynamic.ModeUpdate}); err != nil || out.Status != "awaiting-approval" {
		t.Fatalf("update = %+v, %v", out, err)
	}
	if acc := pg.answer(e.lastRequest(), page.Resolution{Reason: ReasonRejected}); !acc.Accepted {
		t.Fatalf("decline refused: %s", acc.Message)
	}
	alive("a declined update", dynamic.RunRejected)

	d3 := e.define(existing(d1.PluginID), "throw new Error('broken')", clientCode)
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d1.PluginID, PackageID: d3.PackageID, Mode: dynamic.ModeUpdate}); err != nil {
		t.Fatal(err)
	}
	res := pg.start(e.lastRequest(), false)
	const kept = "The working run run-1 (pkg-1) of clock-1 keeps running: the new half was started beside it, and nothing was stopped."
	if res.OK || res.Reason != ReasonHostHalfFailed || !strings.HasPrefix(res.Message, "the host half of clock-1/pkg-3 (run-3) failed to start: clock-1: Error: broken.") ||
		!strings.Contains(res.Message, kept) {
		t.Fatalf("update failed on the page = %+v; want %s and %q", res, ReasonHostHalfFailed, kept)
	}
	alive("an update that failed on the page", dynamic.RunFailed)
}

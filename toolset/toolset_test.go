package toolset_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	goldenfile "github.com/cordiskit/cordiskit/internal/golden"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/toolset"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// harness is a runtime with a toolset, driven only through the registry's JSON API.
type harness struct {
	t     *testing.T
	root  *kit.Context
	ts    *toolset.Toolset
	tools *kit.Tools
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts, err := toolset.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := kit.ToolsService.Get(root)
	h := &harness{t: t, root: root, ts: ts, tools: tools}
	t.Cleanup(func() {
		if err := ts.Dispose(context.Background()); err != nil {
			t.Errorf("toolset Dispose: %v", err)
		}
		root.Fiber().Dispose(context.Background())
	})
	return h
}

// call runs a tool with args (marshalled to JSON) and returns the raw JSON result.
func (h *harness) call(tool string, args any) (json.RawMessage, error) {
	h.t.Helper()
	in, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.tools.Call(context.Background(), tool, in)
}

func (h *harness) mustCall(tool string, args any) json.RawMessage {
	h.t.Helper()
	out, err := h.call(tool, args)
	if err != nil {
		h.t.Fatalf("%s %v: %v", tool, args, err)
	}
	return out
}

type mountOut struct {
	ID         string   `json:"id"`
	PluginName string   `json:"pluginName"`
	State      string   `json:"state"`
	Provides   []string `json:"provides"`
	WaitingFor []string `json:"waitingFor"`
}

func (h *harness) mount(code string) mountOut {
	h.t.Helper()
	var out mountOut
	if err := json.Unmarshal(h.mustCall("cordis_mount", map[string]string{"code": code}), &out); err != nil {
		h.t.Fatal(err)
	}
	return out
}

func (h *harness) mountErr(code string) string {
	h.t.Helper()
	out, err := h.call("cordis_mount", map[string]string{"code": code})
	if err == nil {
		h.t.Fatalf("mount succeeded with %s, want an error", out)
	}
	return err.Error()
}

func (h *harness) inspect(what, name string) string {
	h.t.Helper()
	args := map[string]string{}
	if what != "" {
		args["what"] = what
	}
	if name != "" {
		args["name"] = name
	}
	var s string
	if err := json.Unmarshal(h.mustCall("cordis_inspect", args), &s); err != nil {
		h.t.Fatal(err)
	}
	return s
}

func contains(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Fatalf("missing %q in:\n%s", w, got)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name+".golden"), []byte(got))
}

func TestListenerObservesEvent(t *testing.T) {
	h := newHarness(t)
	out := h.mount(`
		return {
			name: 'change-logger',
			apply(ctx) {
				const seen = []
				ctx.provide('seen', { list: () => seen })
				ctx.on('tools/change', (tool, registered) => { seen.push(tool + (registered ? '+' : '-')) })
			},
		}`)
	if out.ID != "dyn-1" || out.PluginName != "change-logger" || out.State != "active" {
		t.Fatalf("mount result %+v", out)
	}
	h.mount(`return { name: 'tool-maker', apply(ctx) { ctx.tools.register({ name: 'noop_tool', description: 'does nothing', parameters: { type: 'object' }, execute: () => ({ ok: true }) }) } }`)
	seen := h.mount(`return { name: 'reader', inject: ['seen'], apply(ctx) {
		ctx.tools.register({ name: 'read_seen', description: 'what change-logger saw', parameters: { type: 'object' }, execute: () => ctx.seen.list() })
	} }`)
	if seen.State != "active" {
		t.Fatalf("reader: %+v", seen)
	}
	got := string(h.mustCall("read_seen", map[string]any{}))
	if !strings.Contains(got, `"noop_tool+"`) {
		t.Fatalf("listener did not observe the tools/change event: %s", got)
	}
}

func TestMountToolAndCallIt(t *testing.T) {
	h := newHarness(t)
	h.mount(`return { name: 'reverser', apply(ctx) {
		ctx.tools.register({
			name: 'reverse_text',
			description: 'Reverses text.',
			parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
			execute: (args) => ({ reversed: [...args.text].reverse().join('') }),
		})
	} }`)
	if got := string(h.mustCall("reverse_text", map[string]string{"text": "harness"})); got != `{"reversed":"ssenrah"}` {
		t.Fatalf("reverse_text = %s", got)
	}
	contains(t, h.inspect("tools", ""), "- reverse_text")
	h.mustCall("cordis_unmount", map[string]string{"id": "dyn-1"})
	if _, ok := h.tools.Get("reverse_text"); ok {
		t.Fatal("tool survived unmount")
	}
}

func TestCrossMountComposition(t *testing.T) {
	h := newHarness(t)
	consumer := `return { name: 'greeter-consumer', inject: ['greeter'], apply(ctx) {
		ctx.tools.register({ name: 'greet', description: 'greets', parameters: { type: 'object', properties: { name: { type: 'string' } } },
			execute: (args) => ctx.greeter.greet(args.name) })
	} }`
	provider := `return { name: 'greeter-provider', apply(ctx) { ctx.provide('greeter', { greet: (n) => 'hi ' + n }) } }`

	c := h.mount(consumer)
	if c.State != "pending" || strings.Join(c.WaitingFor, ",") != "greeter" {
		t.Fatalf("consumer first: %+v", c)
	}
	if _, ok := h.tools.Get("greet"); ok {
		t.Fatal("pending consumer's tool is registered")
	}
	contains(t, h.inspect("temporary", ""), "greeter-consumer [pending] — provides: none; waiting for: greeter")

	p := h.mount(provider)
	if p.State != "active" || strings.Join(p.Provides, ",") != "greeter" {
		t.Fatalf("provider: %+v", p)
	}
	if got := string(h.mustCall("greet", map[string]string{"name": "late"})); got != `"hi late"` {
		t.Fatalf("greet = %s", got)
	}
	contains(t, h.inspect("services", ""), "- greeter (provided by greeter-provider)")
	contains(t, h.inspect("api", ""), "- greeter (provided by greeter-provider, no catalog entry)")

	h.mustCall("cordis_unmount", map[string]string{"id": p.ID})
	if _, ok := h.tools.Get("greet"); ok {
		t.Fatal("consumer's tool survived its provider's unmount")
	}
	contains(t, h.inspect("temporary", ""), "greeter-consumer [pending] — provides: none; waiting for: greeter")

	h.mount(provider)
	if got := string(h.mustCall("greet", map[string]string{"name": "again"})); got != `"hi again"` {
		t.Fatalf("greet after re-provide = %s", got)
	}
	contains(t, h.inspect("temporary", ""), "greeter-consumer [running]")
}

func TestFailedMountsLeaveNothing(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		want       []string
	}{
		{"syntax", "return {", []string{"dyn-1"}},
		{"throw", "throw new Error('boom in sandbox')", []string{"boom in sandbox"}},
		{"undefined", "const p = (ctx) => {}", []string{"forget", "return"}},
		{"not a plugin", "return 42", []string{"apply"}},
		{"apply throws", "return { name: 'x', apply(ctx) { ctx.tools.register({name: 'half', description: 'd', parameters: {type: 'object'}, execute: () => 1}); throw new Error('apply failed') } }", []string{"apply failed"}},
		{"async apply rejects", "return { name: 'x', async apply(ctx) { ctx.provide('half', 1); await 0; throw new Error('late failure') } }", []string{"late failure"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			before := h.inspect("", "")
			msg := h.mountErr(tc.code)
			contains(t, msg, tc.want...)
			if after := h.inspect("", ""); after != before {
				t.Fatalf("failed mount changed the runtime:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if next := h.mount("return (ctx) => {}"); next.ID != "dyn-2" {
				t.Fatalf("next id %s, want dyn-2 (ids are never reused)", next.ID)
			}
		})
	}
}

func TestDuplicateToolName(t *testing.T) {
	h := newHarness(t)
	code := `return { name: 'dup', apply(ctx) { ctx.tools.register({ name: 'same', description: 'd', parameters: { type: 'object' }, execute: () => 1 }) } }`
	h.mount(code)
	msg := h.mountErr(code)
	contains(t, msg, "same", "cordis_inspect", "temporary")
	contains(t, h.inspect("temporary", ""), "dyn-1")
	if strings.Contains(h.inspect("temporary", ""), "dyn-2") {
		t.Fatal("failed mount is tracked")
	}
}

func TestUnmountErrors(t *testing.T) {
	h := newHarness(t)
	for _, id := range []string{"dyn-9", "tools", ""} {
		_, err := h.call("cordis_unmount", map[string]string{"id": id})
		if err == nil || !strings.Contains(err.Error(), `cordis_inspect what:"temporary"`) {
			t.Fatalf("unmount %q: %v", id, err)
		}
	}
	m := h.mount("return (ctx) => {}")
	h.mustCall("cordis_unmount", map[string]string{"id": m.ID})
	if _, err := h.call("cordis_unmount", map[string]string{"id": m.ID}); err == nil {
		t.Fatal("second unmount succeeded")
	}
}

func TestConcurrentUnmountsOneWins(t *testing.T) {
	h := newHarness(t)
	m := h.mount("return (ctx) => {}")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { _, errs[i] = h.call("cordis_unmount", map[string]string{"id": m.ID}) })
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("want exactly one success: %v / %v", errs[0], errs[1])
	}
}

func TestUnmountQuiescence(t *testing.T) {
	h := newHarness(t)
	h.mount(`return { name: 'counter', apply(ctx) {
		let n = 0
		ctx.provide('count', { get: () => n })
		ctx.on('tools/change', () => { n++ })
	} }`)
	m := h.mount(`return { name: 'listener', apply(ctx) { ctx.on('tools/change', () => { throw new Error('must never run') }) } }`)
	h.mustCall("cordis_unmount", map[string]string{"id": m.ID})
	// Registering a tool fires tools/change right away: the unmounted listener must not run.
	h.mount(`return { name: 'trigger', apply(ctx) { ctx.tools.register({ name: 't', description: 'd', parameters: { type: 'object' }, execute: () => 1 }) } }`)
	contains(t, h.inspect("temporary", ""), "counter [running]", "trigger [running]")
	if strings.Contains(h.inspect("temporary", ""), "listener") {
		t.Fatal("unmounted mount still listed")
	}
}

func TestInspectValidation(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		args map[string]string
		want string
	}{
		{map[string]string{"name": "tools"}, `name is valid only with what:"api" or what:"events"`},
		{map[string]string{"what": "plugins", "name": "x"}, `name is valid only with what:"api" or what:"events"`},
		{map[string]string{"what": "api", "name": "nope"}, `no catalogued service named "nope"`},
		{map[string]string{"what": "events", "name": "nope"}, `no catalogued event named "nope"; catalogued events: tools/change`},
		{map[string]string{"what": "bogus"}, `unknown section "bogus"`},
	} {
		_, err := h.call("cordis_inspect", tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestInspectReportGolden(t *testing.T) {
	h := newHarness(t)
	h.mount(`return { name: 'greeter-provider', apply(ctx) { ctx.provide('greeter', { greet: (n) => 'hi ' + n }) } }`)
	h.mount(`return { name: 'waiting-consumer', inject: ['missing'], apply(ctx) {} }`)
	h.mount(`return { name: 'timer-user', inject: ['timer'], apply(ctx) { ctx.tools.register({ name: 'now', description: 'd', parameters: { type: 'object' }, execute: () => 1 }) } }`)
	golden(t, "inspect_all", h.inspect("", ""))
	golden(t, "inspect_api_timer", h.inspect("api", "timer"))
	golden(t, "inspect_events_tools_change", h.inspect("events", "tools/change"))
}

func TestToolsetDisposalUnmountsAll(t *testing.T) {
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer root.Fiber().Dispose(context.Background())
	ts, err := toolset.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := kit.ToolsService.Get(root)
	if _, err := tools.Call(context.Background(), "cordis_mount", json.RawMessage(`{"code":"return { name: 'p', apply(ctx) { ctx.provide('svc', 1); ctx.tools.register({ name: 'x', description: 'd', parameters: { type: 'object' }, execute: () => 1 }) } }"}`)); err != nil {
		t.Fatal(err)
	}
	if err := ts.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"x", "cordis_mount", "cordis_inspect", "cordis_unmount"} {
		if _, ok := tools.Get(name); ok {
			t.Errorf("tool %s survived toolset disposal", name)
		}
	}
	if _, ok := root.Get("svc"); ok {
		t.Error("mount service survived toolset disposal")
	}
}

// Inspection must not wait for a mount in progress (apply may run up to MountTimeout).
func TestInspectDuringSlowMount(t *testing.T) {
	h := newHarness(t)
	mounted := make(chan struct{})
	go func() {
		defer close(mounted)
		h.mount(`return { name: 'slow', inject: ['timer'], async apply(ctx) { await ctx.sleep(300) } }`)
	}()
	// Wait until the slow mount's fiber exists, i.e. its apply is running.
	for !strings.Contains(h.inspect("plugins", ""), "slow [loading]") {
		select {
		case <-mounted:
			t.Fatal("mount finished before it could be observed loading")
		default:
		}
	}
	contains(t, h.inspect("temporary", ""), "No temporary Plugins are running")
	select {
	case <-mounted:
		t.Fatal("inspect returned only after the mount finished")
	default:
	}
	<-mounted
	contains(t, h.inspect("temporary", ""), "slow [running]")
}

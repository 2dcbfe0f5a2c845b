package runner

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// invoker is the path a model's call takes: schema validation, then the registry.
func (e *env) invoker() *invoke.Invoker {
	e.t.Helper()
	inv, err := invoke.NewInvoker(e.root)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = inv.Close(context.Background()) })
	return inv
}

// call calls a tool as session ("" for none) with JSON args, as a model's call arrives,
// and returns the JSON result or the error text.
func call(t *testing.T, inv *invoke.Invoker, session, name, args string) (out, errText string) {
	t.Helper()
	res, err := inv.InvokeSession(context.Background(), session, name, json.RawMessage(args))
	if err != nil {
		return "", err.Error()
	}
	return string(res), ""
}

// mustCall calls a tool that must succeed and decodes its result into *v, which it zeroes
// first.
func mustCall[T any](t *testing.T, inv *invoke.Invoker, session, name, args string, v *T) {
	t.Helper()
	out, errText := call(t, inv, session, name, args)
	if errText != "" {
		t.Fatalf("%s %s: %s", name, args, errText)
	}
	var zero T
	*v = zero
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%s: %v in %s", name, err, out)
	}
}

const hostOnly = `return { name: 'clock', apply(ctx) { harness.handle('now', () => ({ t: 1 })) } }`

func defineArgs(plugin, name, purpose, code string) string {
	return `{"plugin":` + plugin + `,"name":` + name + `,"purpose":` + purpose + `,"code":` + code + `}`
}

// The seven are in the registry with the generated descriptions and schemas, owned by
// the runner, and go with it.
func TestToolsRegistered(t *testing.T) {
	e := newEnv(t, nil)
	tools, _ := kit.ToolsService.Get(e.root)
	var seven []string
	for _, tool := range e.r.Tools() {
		seven = append(seven, tool.Name)
	}
	if want := []string{"cordis_inspect_list", "cordis_inspect_query", "cordis_inspect_self", "cordis_define", "cordis_run", "cordis_stop", "cordis_undefine"}; !slices.Equal(seven, want) {
		t.Fatalf("Tools = %v, want %v", seven, want)
	}
	for _, name := range seven {
		s, ok := tools.Get(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		if owner, _ := tools.Owner(name); owner != "cordis-runner/tools" {
			t.Errorf("%s is owned by %q", name, owner)
		}
		if len(s.Description) < 100 || !json.Valid(s.InputSchema) || !json.Valid(s.OutputSchema) {
			t.Errorf("%s: description %d bytes, schemas %s / %s", name, len(s.Description), s.InputSchema, s.OutputSchema)
		}
	}
	if err := e.r.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range seven {
		if _, ok := tools.Get(name); ok {
			t.Errorf("%s is still registered after Dispose", name)
		}
	}
}

// cordis_define's checks run in the order of docs/dynamic-plugins.md, "cordis_define":
// each row fails every check after the one it names too, and only the first failing check
// answers.
func TestDefineToolValidationOrder(t *testing.T) {
	e := newEnv(t, nil)
	inv := e.invoker()
	newP := `{"kind":"new","idPrefix":"clock"}`
	for _, c := range []struct{ name, session, args, want string }{
		{"no session", "", defineArgs(`{"kind":"new","idPrefix":"X"}`, `" "`, `" "`, `{}`),
			"cordis_define needs an agent-backed session, and this call carries none, so nothing was done: the runtime must put the calling session on each tool call's context (kit.WithSession; mcpkit does it for every MCP client session, Invoker.InvokeSession for an agent loop). Tell the user the Cordis dynamic tools are not wired to a session in this runtime; cordis_inspect_list and the cordis_mount tools still work"},
		{"blank name", "s1", defineArgs(`{"kind":"new","idPrefix":"X"}`, `"  "`, `" "`, `{}`),
			`cordis_define needs a non-empty name: a short readable name for this Package, such as "Clock widget"`},
		{"blank purpose", "s1", defineArgs(`{"kind":"new","idPrefix":"X"}`, `"Clock"`, `"\t"`, `{}`),
			"cordis_define needs a non-empty purpose: one sentence, for the user, saying what this Package does"},
		{"no half", "s1", defineArgs(`{"kind":"new","idPrefix":"X"}`, `"Clock"`, `"Shows the time."`, `{}`),
			"cordis_define needs code.host, code.client, or both: code.host runs in the host process, code.client in the user's browser page"},
		{"blank host half", "s1", defineArgs(`{"kind":"new","idPrefix":"X"}`, `"Clock"`, `"Shows the time."`, `{"host":" \n","client":"return ("}`),
			"cordis_define: code.host is blank; omit it for a Package without that half, or give the body of an async function that returns a plugin, such as: return (ctx) => { … }"},
		{"blank client half", "s1", defineArgs(`{"kind":"new","idPrefix":"X"}`, `"Clock"`, `"Shows the time."`, `{"host":"return () => {}","client":""}`),
			"cordis_define: code.client is blank; omit it for a Package without that half, or give the body of an async function that returns a plugin, such as: return (ctx) => { … }"},
		{"host does not parse", "s1", defineArgs(`{"kind":"new","idPrefix":"X"}`, `"Clock"`, `"Shows the time."`, `{"host":"return (ctx) => {","client":"return ("}`),
			"cordis_define: code.host: mount code failed to parse at line 1, column 18: Unexpected end of input\n  1 | return (ctx) => {\n    |                  ^\nBrackets do not balance: the `{` at line 1, column 17 is never closed."},
		{"bad prefix", "s1", defineArgs(`{"kind":"new","idPrefix":"Clock1"}`, `"Clock"`, `"Shows the time."`, `{"host":"return () => {}"}`),
			`cordis_define: plugin.idPrefix must be 3–6 lowercase English letters, such as "clock" (the Plugin's id becomes clock-N); got "Clock1"`},
		{"existing without id", "s1", defineArgs(`{"kind":"existing"}`, `"Clock"`, `"Shows the time."`, `{"host":"return () => {}"}`),
			`cordis_define: plugin kind "existing" needs pluginId, the Plugin to add this Package to, such as "clock-1" (cordis_inspect_self lists yours); for a new Plugin pass plugin:{kind:"new", idPrefix}`},
		{"existing missing", "s1", defineArgs(`{"kind":"existing","pluginId":"clock-9"}`, `"Clock"`, `"Shows the time."`, `{"host":"return () => {}"}`),
			`no dynamic plugin "clock-9" in this session — it may have been removed (cordis_undefine), lost on a restart, or belong to another session. List yours with cordis_inspect_self; define a new one with cordis_define plugin:{kind:"new", idPrefix}`},
		{"unknown field", "s1", defineArgs(newP, `"Clock"`, `"Shows the time."`, `{"hots":"return () => {}"}`),
			`cordis_define: the arguments do not fit its input schema (json: unknown field "hots"); call it again with only the fields the schema lists, each of the type it says`},
		{"kind outside the enum", "s1", defineArgs(`{"kind":"old"}`, `"Clock"`, `"Shows the time."`, `{"host":"return () => {}"}`),
			`tool "cordis_define": invalid argument "plugin.kind": enum: old does not equal any of: [new existing]; call it again with arguments that match its input schema`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, got := call(t, inv, c.session, "cordis_define", c.args)
			if got != c.want {
				t.Errorf("error:\n%s\nwant:\n%s\n(out %s)", got, c.want, out)
			}
		})
	}
	// Nothing was recorded and no id consumed: the first define that passes is clock-1/pkg-1.
	var d dynamic.DefineOutput
	mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":" clock "}`, `" Clock "`, `" Shows the time. "`, `{"host":`+jsonString(hostOnly)+`}`), &d)
	if d != (dynamic.DefineOutput{PluginID: "clock-1", PackageID: "pkg-1", Name: "Clock", Purpose: "Shows the time.", HasHostHalf: true}) {
		t.Fatalf("define = %+v", d)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// cordis_run answers in one shape for a host-only and a client-bearing Package, and
// refuses in the order of docs/dynamic-plugins.md, "cordis_run", with the runner's
// teaching text.
func TestRunToolShapeAndRefusals(t *testing.T) {
	e := newEnv(t, nil)
	inv := e.invoker()
	var host, client dynamic.DefineOutput
	mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"clock"}`, `"Clock"`, `"Shows the time."`, `{"host":`+jsonString(hostOnly)+`}`), &host)
	mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"existing","pluginId":"clock-1"}`, `"Clock UI"`, `"Shows the time in the page."`, `{"client":"return () => {}"}`), &client)
	broken := defineArgs(`{"kind":"new","idPrefix":"broke"}`, `"Broken"`, `"Fails."`, `{"host":"return 42"}`)
	var b dynamic.DefineOutput
	mustCall(t, inv, "s1", "cordis_define", broken, &b)

	run := func(session, id, pkg, mode string) (string, string) {
		return call(t, inv, session, "cordis_run", `{"pluginId":"`+id+`","packageId":"`+pkg+`","mode":"`+mode+`"}`)
	}
	for _, c := range []struct{ name, session, id, pkg, mode, want string }{
		{"no session", "", "clock-1", "pkg-9", "update", "cordis_run needs an agent-backed session, and this call carries none, so nothing was done: the runtime must put the calling session on each tool call's context (kit.WithSession; mcpkit does it for every MCP client session, Invoker.InvokeSession for an agent loop). Tell the user the Cordis dynamic tools are not wired to a session in this runtime; cordis_inspect_list and the cordis_mount tools still work"},
		{"blank plugin", "s1", " ", "pkg-9", "update", `cordis_run needs pluginId: the id of one of your Plugins, such as "clock-1" (cordis_inspect_self lists them)`},
		{"another session's plugin", "s2", "clock-1", "pkg-9", "update", `no dynamic plugin "clock-1" in this session — it may have been removed (cordis_undefine), lost on a restart, or belong to another session. List yours with cordis_inspect_self; define a new one with cordis_define plugin:{kind:"new", idPrefix}`},
		{"package missing", "s1", "clock-1", "pkg-9", "update", `plugin clock-1 has no package "pkg-9"; its packages are listed by cordis_inspect_self {pluginId:"clock-1"}`},
		{"update before any success", "s1", "clock-1", "pkg-1", "update", `clock-1 has no successful version yet, so there is nothing to update from; use mode "run" for its first activation`},
		{"host half fails", "s1", "broke-2", "pkg-3", "run", "the host half of broke-2/pkg-3 (run-1) failed to start: broke-2: mount code must return a plugin — a function (ctx) => { … }, or an object with an apply(ctx) method — but it returned number:\n  ✓ return (ctx) => { … }\n  ✓ return { name: '…', inject: ['…'], apply(ctx) { … } }. Fix the code, cordis_define a new Package on the same Plugin (plugin:{kind:\"existing\", pluginId:\"broke-2\"}) and cordis_run it."},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, got := run(c.session, c.id, c.pkg, c.mode)
			if got != c.want {
				t.Errorf("error:\n%s\nwant:\n%s\n(out %s)", got, c.want, out)
			}
		})
	}

	outA, errA := run("s1", "clock-1", "pkg-1", "run")
	if errA != "" {
		t.Fatal(errA)
	}
	for _, c := range []struct{ mode, want string }{
		{"update", `pkg-1 is already the current Package of clock-1; use mode "run" to restart it`},
		{"run", `pkg-2 differs from the current Package pkg-1 of clock-1; use mode "update" to switch to it (mode "run" restarts, retries or rolls back to the current Package only)`},
	} {
		pkg := map[string]string{"update": "pkg-1", "run": "pkg-2"}[c.mode]
		if _, got := run("s1", "clock-1", pkg, c.mode); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.mode, pkg, got, c.want)
		}
	}
	outB, errB := run("s1", "clock-1", "pkg-2", "update")
	if errB != "" {
		t.Fatal(errB)
	}
	if _, got := run("s1", "clock-1", "pkg-2", "update"); got != "clock-1 already has a pending run request approval-1 for pkg-2 (run-3); wait for the outcome (it arrives as a message), or cordis_stop clock-1 to cancel it" {
		t.Errorf("second update = %q", got)
	}

	// One shape: the same fields for both, the optional ones aside.
	var a, bOut map[string]any
	_ = json.Unmarshal([]byte(outA), &a)
	_ = json.Unmarshal([]byte(outB), &bOut)
	for _, m := range []map[string]any{a, bOut} {
		for _, k := range []string{"status", "pluginId", "packageId", "pluginRunId", "mode", "host", "client"} {
			if _, ok := m[k]; !ok {
				t.Errorf("cordis_run answer lacks %q: %v", k, m)
			}
		}
		for k := range m {
			if !slices.Contains([]string{"status", "pluginId", "packageId", "pluginRunId", "mode", "host", "client", "currentPackageId", "nextPackageId", "approvalRequestId"}, k) {
				t.Errorf("cordis_run answer has an unexpected field %q", k)
			}
		}
	}
	var ra, rb dynamic.RunOutput
	_ = json.Unmarshal([]byte(outA), &ra)
	_ = json.Unmarshal([]byte(outB), &rb)
	if ra.Status != dynamic.StartRunning || ra.Mode != dynamic.ModeRun || ra.CurrentPackageID != "pkg-1" || ra.NextPackageID != "" ||
		ra.Host.Status != dynamic.HalfRunning || !slices.Equal(ra.Host.Handlers, []string{"now"}) || ra.Client.Status != dynamic.HalfAbsent {
		t.Errorf("host-only run = %s", outA)
	}
	if rb.Status != dynamic.StartAwaitingApproval || rb.Mode != dynamic.ModeUpdate || rb.CurrentPackageID != "pkg-1" || rb.NextPackageID != "pkg-2" ||
		rb.ApprovalRequestID != "approval-1" || rb.Host.Status != dynamic.HalfAbsent || rb.Client.Status != dynamic.HalfPending {
		t.Errorf("client-bearing run = %s", outB)
	}
}

// cordis_inspect_self checks in the order of docs/dynamic-plugins.md,
// "cordis_inspect_self", and its three modes carry the latest run with its diagnostic;
// rejected and cancelled stay distinct; the listing shows messages kept for a session that
// is not connected.
func TestInspectSelfTool(t *testing.T) {
	e := newEnv(t, nil)
	inv := e.invoker()
	var d dynamic.DefineOutput
	mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"clock"}`, `"Clock"`, `"Shows the time."`, `{"host":"return 42"}`), &d)

	for _, c := range []struct{ name, session, args, want string }{
		{"no session", "", `{}`, "cordis_inspect_self needs an agent-backed session, and this call carries none, so nothing was done: the runtime must put the calling session on each tool call's context (kit.WithSession; mcpkit does it for every MCP client session, Invoker.InvokeSession for an agent loop). Tell the user the Cordis dynamic tools are not wired to a session in this runtime; cordis_inspect_list and the cordis_mount tools still work"},
		{"package without plugin", "s1", `{"packageId":"pkg-9"}`, `cordis_inspect_self: packageId "pkg-9" needs the pluginId it belongs to; pass both (cordis_inspect_self {} lists your Plugins, {pluginId} a Plugin's Packages)`},
		{"another session's plugin", "s2", `{"pluginId":"clock-1","packageId":"pkg-9"}`, `no dynamic plugin "clock-1" in this session — it may have been removed (cordis_undefine), lost on a restart, or belong to another session. List yours with cordis_inspect_self; define a new one with cordis_define plugin:{kind:"new", idPrefix}`},
		{"package missing", "s1", `{"pluginId":"clock-1","packageId":"pkg-9"}`, `package "pkg-9" does not exist on plugin clock-1; cordis_inspect_self {pluginId:"clock-1"} lists its packages`},
	} {
		if out, got := call(t, inv, c.session, "cordis_inspect_self", c.args); got != c.want {
			t.Errorf("%s: %q (out %s), want %q", c.name, got, out, c.want)
		}
	}

	var self dynamic.InspectSelfOutput
	mustCall(t, inv, "s1", "cordis_inspect_self", `{}`, &self)
	if self.Mode != dynamic.SelfPlugins || self.Plugins == nil || len(*self.Plugins) != 1 || (*self.Plugins)[0].State != dynamic.PluginDefined || (*self.Plugins)[0].LatestRun != nil {
		t.Fatalf("before a run: %+v", self)
	}
	mustCall(t, inv, "s2", "cordis_inspect_self", `{}`, &self)
	if self.Mode != dynamic.SelfPlugins || self.Plugins == nil || len(*self.Plugins) != 0 {
		t.Fatalf("s2 sees %+v", self)
	}

	// A failed run: the plugin mode has the latest run and its diagnostic.
	if _, got := call(t, inv, "s1", "cordis_run", `{"pluginId":"clock-1","packageId":"pkg-1","mode":"run"}`); got == "" {
		t.Fatal("a host half returning 42 ran")
	}
	mustCall(t, inv, "s1", "cordis_inspect_self", `{"pluginId":"clock-1"}`, &self)
	p := self.Plugin
	if self.Mode != dynamic.SelfPlugin || p == nil || p.State != dynamic.PluginFailed || p.LatestRun == nil || p.LatestRun.Error == nil ||
		p.LatestRun.Error.Phase != dynamic.PhaseHostLoad || !strings.Contains(p.LatestRun.Error.Message, "mount code must return a plugin") ||
		len(p.Packages) != 1 || !p.Packages[0].IsNext || p.Packages[0].IsCurrent {
		t.Fatalf("after a failed run: %+v", self)
	}

	// The package mode: source, and a runtime state of its own.
	mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"existing","pluginId":"clock-1"}`, `"Clock"`, `"Shows the time."`, `{"host":`+jsonString(hostOnly)+`}`), &d)
	mustCall(t, inv, "s1", "cordis_run", `{"pluginId":"clock-1","packageId":"pkg-2","mode":"run"}`, &dynamic.RunOutput{})
	mustCall(t, inv, "s1", "cordis_inspect_self", `{"pluginId":"clock-1","packageId":"pkg-2"}`, &self)
	k := self.Package
	if self.Mode != dynamic.SelfPackage || self.Plugin == nil || self.Plugin.State != dynamic.PluginRunning || k == nil || k.Code.Host == nil || *k.Code.Host != hostOnly ||
		k.Code.Client != nil || k.Runtime.State != dynamic.PluginRunning || k.Runtime.Host.Status != dynamic.HalfRunning || !slices.Equal(k.Runtime.Host.Handlers, []string{"now"}) {
		t.Fatalf("package mode: %+v", self)
	}
	mustCall(t, inv, "s1", "cordis_inspect_self", `{"pluginId":"clock-1","packageId":"pkg-1"}`, &self)
	if k := self.Package; k.Runtime.State != dynamic.PluginDefined || k.Runtime.Host.Status != dynamic.HalfStopped {
		t.Fatalf("the failed Package read through the Plugin's latest run: %+v", k.Runtime)
	}

	// Rejected and cancelled are distinct states.
	mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"panel"}`, `"Panel"`, `"A panel."`, `{"client":"return () => {}"}`), &d)
	mustCall(t, inv, "s1", "cordis_run", `{"pluginId":"panel-2","packageId":"pkg-3","mode":"run"}`, &dynamic.RunOutput{})
	q := e.lastRequest()
	if acc := (testPage{e}).answer(q, page.Resolution{Reason: ReasonRejected}); !acc.Accepted {
		t.Fatal(acc.Message)
	}
	mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"note"}`, `"Note"`, `"A note."`, `{"client":"return () => {}"}`), &d)
	mustCall(t, inv, "s1", "cordis_run", `{"pluginId":"note-3","packageId":"pkg-4","mode":"run"}`, &dynamic.RunOutput{})
	mustCall(t, inv, "s1", "cordis_stop", `{"pluginId":"note-3"}`, &dynamic.StopOutput{})

	mustCall(t, inv, "s1", "cordis_inspect_self", `{}`, &self)
	states := map[string]dynamic.PluginState{}
	for _, s := range *self.Plugins {
		states[s.PluginID] = s.State
	}
	if want := map[string]dynamic.PluginState{"clock-1": dynamic.PluginRunning, "panel-2": dynamic.PluginRejected, "note-3": dynamic.PluginCancelled}; !maps.Equal(states, want) {
		t.Errorf("states = %v, want %v", states, want)
	}
	// The decline steered s1, which is not connected: the message is kept and listed.
	if len(self.Messages) == 0 || self.Messages[0].Kind != dynamic.MessageSteer || self.Messages[0].PluginID != "panel-2" || !strings.Contains(self.Messages[0].Text, "reject") {
		t.Errorf("kept messages = %+v", self.Messages)
	}
}

// cordis_stop is idempotent; cordis_undefine removes the Plugin and a second one fails.
func TestStopAndUndefineTools(t *testing.T) {
	e := newEnv(t, nil)
	inv := e.invoker()
	mustCall(t, inv, "s1", "cordis_define", defineArgs(`{"kind":"new","idPrefix":"clock"}`, `"Clock"`, `"Shows the time."`, `{"host":`+jsonString(hostOnly)+`}`), &dynamic.DefineOutput{})
	mustCall(t, inv, "s1", "cordis_run", `{"pluginId":"clock-1","packageId":"pkg-1","mode":"run"}`, &dynamic.RunOutput{})
	for range 2 {
		var s dynamic.StopOutput
		mustCall(t, inv, "s1", "cordis_stop", `{"pluginId":"clock-1"}`, &s)
		if s.PluginID != "clock-1" {
			t.Fatalf("stop = %+v", s)
		}
	}
	missingText := `no dynamic plugin "clock-1" in this session — it may have been removed (cordis_undefine), lost on a restart, or belong to another session. List yours with cordis_inspect_self; define a new one with cordis_define plugin:{kind:"new", idPrefix}`
	if _, got := call(t, inv, "s2", "cordis_stop", `{"pluginId":"clock-1"}`); got != missingText {
		t.Errorf("stop from s2 = %q", got)
	}
	mustCall(t, inv, "s1", "cordis_run", `{"pluginId":"clock-1","packageId":"pkg-1","mode":"run"}`, &dynamic.RunOutput{})
	var u dynamic.UndefineOutput
	mustCall(t, inv, "s1", "cordis_undefine", `{"pluginId":"clock-1"}`, &u)
	if u != (dynamic.UndefineOutput{PluginID: "clock-1", WasRunning: true}) {
		t.Fatalf("undefine = %+v", u)
	}
	if _, got := call(t, inv, "s1", "cordis_undefine", `{"pluginId":"clock-1"}`); got != missingText {
		t.Errorf("second undefine = %q", got)
	}
	if _, got := call(t, inv, "s1", "cordis_undefine", `{"pluginId":""}`); got != `cordis_undefine needs pluginId: the id of one of your Plugins, such as "clock-1" (cordis_inspect_self lists them)` {
		t.Errorf("undefine without id = %q", got)
	}
}

// A listener a host half registered (here a Go plugin under the runs group) does not see
// a control tool's call through GateContext; other tools' calls still reach it.
func TestRunnerGateContext(t *testing.T) {
	e := newEnv(t, nil)
	gate := kit.NewWaterfall[string, string]("test/gate")
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
		e.root.Plugin(&kit.Plugin{Name: "runtime-policy", Apply: veto("runtime")}),
		e.r.group.Context().Plugin(&kit.Plugin{Name: "host-half-like", Apply: veto("half")}),
	} {
		if err := f.Err(); err != nil {
			t.Fatal(err)
		}
	}
	for tool, want := range map[string]string{
		"cordis_run":    "runtime>allow",
		"cordis_stop":   "runtime>allow",
		"cordis_mount":  "runtime>allow",
		"canary_probe":  "runtime>half>allow",
		"cordis_define": "runtime>allow",
	} {
		got, err := gate.Emit(e.r.GateContext(context.Background(), tool), e.root, tool, func() (string, error) { return "allow", nil })
		if got != want || err != nil {
			t.Errorf("%s: gate = %q, %v; want %q", tool, got, err, want)
		}
	}
}

package toolset_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// canaryCode is mounted before the adversarial cases and stays mounted through all of them.
// Its tool reports what an escape would change: its realm's intrinsics and globals, and the
// state behind the service it provides to the cases.
const canaryCode = `
globalThis.canaryMarker = 'canary-realm'
return { name: 'canary', apply(ctx) {
	const state = { secret: 'canary-secret', config: { mode: 'safe' } }
	const svc = {
		config: state.config,
		secret: () => state.secret,
		echo: (x) => x,
		call: (f) => f(1),
		list: () => [1, 2, 3],
		nested: { deep: { value: 'v' } },
	}
	ctx.provide('canarysvc', svc)
	ctx.tools.register({ name: 'canary_probe', description: 'reports whether anything leaked into the canary realm',
		parameters: { type: 'object' },
		execute: () => ({
			obj: ({}).polluted === undefined && Object.prototype.polluted === undefined && ({}).toString() === '[object Object]',
			arr: [].polluted === undefined && [1, 2].map((x) => x * 2).join() === '2,4' && [].push.call([], 1) === 1,
			fn: (function () {}).polluted === undefined && typeof Function.prototype.call === 'function',
			str: ''.polluted === undefined && 'ab'.toUpperCase() === 'AB',
			glob: typeof globalThis.pwned === 'undefined' && globalThis.canaryMarker === 'canary-realm',
			json: JSON.stringify({ a: [1] }) === '{"a":[1]}',
			mode: state.config.mode,
			secret: svc.secret(),
			keys: Object.keys(svc).sort().join(),
			deep: svc.nested.deep.value,
		}) })
} }`

const canaryWant = `{"arr":true,"deep":"v","fn":true,"glob":true,"json":true,"keys":"call,config,echo,list,nested,secret","mode":"safe","obj":true,"secret":"canary-secret","str":true}`

// An adversarialCase is one file of testdata/adversarial: mount code with a header
//
//	// expect: <substring of the cordis_mount error, or "ok">
//	// check: <what Go verifies afterwards; "probe -> <substring>" calls the case's tool
//	//         "probe" with {} and wants the substring in its result or error>
//
// No case may produce the text ESCAPED anywhere (cases print it when their goal succeeded),
// leave a service or tool named "escaped", change the canary, or change the runtime.
type adversarialCase struct {
	name, code, expect, check string
}

func loadAdversarial(t *testing.T) []adversarialCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "adversarial", "*.js"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var cases []adversarialCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := adversarialCase{name: strings.TrimSuffix(filepath.Base(f), ".js"), code: string(b)}
		for _, line := range strings.Split(c.code, "\n") {
			line = strings.TrimSpace(line)
			if v, ok := strings.CutPrefix(line, "// expect:"); ok {
				c.expect = strings.TrimSpace(v)
			} else if v, ok := strings.CutPrefix(line, "// check:"); ok {
				c.check = strings.TrimSpace(v)
			}
		}
		if c.expect == "" || c.check == "" {
			t.Fatalf("%s: missing // expect: or // check: header", f)
		}
		cases = append(cases, c)
	}
	return cases
}

func TestAdversarial(t *testing.T) {
	if childtest.Parent(t) {
		return // a case that crashes the process fails the test instead of the suite
	}
	cases := loadAdversarial(t)
	if len(cases) < 60 {
		t.Fatalf("only %d adversarial cases, want at least 60", len(cases))
	}
	// No case expects a timeout: every case is sized to end by a budget or a check, not by the
	// clock, so the bounds only have to be long enough never to fire on a loaded two-core
	// machine under -race, where building a 9 MiB string took up to 1.7 s and evaluating a
	// case over a second.
	h := newHarnessOpts(t, &toolset.Options{Timeouts: &sandbox.Timeouts{VM: 10 * time.Second, Mount: 10 * time.Second, Call: 10 * time.Second}})
	canary := h.mount(canaryCode)
	if canary.State != "active" {
		t.Fatalf("canary: %+v", canary)
	}
	h.checkCanary()
	baseline := h.runtimeState()

	escapes := 0
	for _, c := range cases {
		ok := t.Run(c.name, func(t *testing.T) {
			h.t = t
			defer func() { h.t = nil }()
			var seen []string
			out, err := h.call("cordis_mount", map[string]string{"code": c.code})
			mounted := ""
			if err != nil {
				seen = append(seen, err.Error())
				if c.expect == "ok" || !strings.Contains(err.Error(), c.expect) {
					t.Errorf("mount error %q, want %q", err, c.expect)
				}
			} else {
				seen = append(seen, string(out))
				var m mountOut
				if err := json.Unmarshal(out, &m); err != nil {
					t.Fatal(err)
				}
				mounted = m.ID
				if c.expect != "ok" {
					t.Errorf("mount succeeded (%s), want an error containing %q", out, c.expect)
				}
			}
			if want, ok := strings.CutPrefix(c.check, "probe ->"); ok && mounted != "" {
				want = strings.TrimSpace(want)
				res, err := h.tools.Call(context.Background(), "probe", json.RawMessage(`{}`))
				got := string(res)
				if err != nil {
					got = err.Error()
				}
				seen = append(seen, got)
				if !strings.Contains(got, want) {
					t.Errorf("probe = %s, want %q", got, want)
				}
			}
			for _, s := range seen {
				if strings.Contains(s, "ESCAPED") {
					t.Errorf("ESCAPE: %s", s)
				}
			}
			h.checkCanary() // while the case is still mounted
			if mounted != "" {
				h.mustCall("cordis_unmount", map[string]string{"id": mounted})
			}
			h.checkCanary()
			h.checkNoEscapedNames()
			if got := h.runtimeState(); got != baseline {
				t.Errorf("runtime changed by the case:\nbefore:\n%s\nafter:\n%s", baseline, got)
			}
		})
		if !ok {
			escapes++
		}
	}
	h.t = t
	t.Logf("adversarial: %d cases, %d failed (escapes or unexpected outcomes)", len(cases), escapes)
}

// checkCanary calls the canary's tool: its realm and its provided state are untouched.
func (h *harness) checkCanary() {
	h.t.Helper()
	out, err := h.tools.Call(context.Background(), "canary_probe", json.RawMessage(`{}`))
	if err != nil {
		h.t.Fatalf("canary tool failed: %v", err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		h.t.Fatal(err)
	}
	norm, _ := json.Marshal(v)
	if string(norm) != canaryWant {
		h.t.Errorf("ESCAPE: canary changed:\n got %s\nwant %s", norm, canaryWant)
	}
}

func (h *harness) checkNoEscapedNames() {
	h.t.Helper()
	for _, name := range []string{"escaped", "probe"} {
		if _, ok := h.root.Get(name); ok {
			h.t.Errorf("ESCAPE: service %q exists on the root", name)
		}
		if _, ok := h.tools.Get(name); ok {
			h.t.Errorf("tool %q survived", name)
		}
	}
}

// runtimeState is the services, plugins and tools sections: what a case must leave as found.
func (h *harness) runtimeState() string {
	return h.inspect("services", "") + "\n" + h.inspect("plugins", "") + "\n" + h.inspect("tools", "")
}

// newHarnessOpts is newHarness with toolset options (short timeouts for hostile code).
func newHarnessOpts(t testing.TB, opts *toolset.Options) *harness {
	t.Helper()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ts, err := toolset.New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := kit.ToolsService.Get(root)
	h := &harness{root: root, ts: ts, tools: tools}
	if tt, ok := t.(*testing.T); ok {
		h.t = tt
	}
	t.Cleanup(func() {
		if err := ts.Dispose(context.Background()); err != nil {
			t.Errorf("toolset Dispose: %v", err)
		}
		root.Fiber().Dispose(context.Background())
	})
	return h
}

// TestRunaway mounts code that never ends, through cordis_mount with short bounds: every
// case is interrupted and reported, and the canary mount and Go keep serving.
func TestRunaway(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newHarnessOpts(t, &toolset.Options{Timeouts: &sandbox.Timeouts{VM: 100 * time.Millisecond, Mount: 300 * time.Millisecond, Call: 100 * time.Millisecond}})
	h.mount(canaryCode)
	tool := func(body string) string {
		return "return { name: 'r', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object' }, execute: " + body + " }) } }"
	}
	trigger := "return { name: 'trigger', apply(ctx) { ctx.tools.register({ name: 'trig', description: 'd', parameters: { type: 'object' }, execute: () => 1 }) } }"
	for _, tc := range []struct {
		name, code string
		mountErr   string // substring of the mount error, or "" when the mount succeeds
		after      string // "probe": call probe and want an error; "trigger": mount trigger; "wait": sleep
		callErr    string
	}{
		{name: "loop before await", code: "while (true) {}", mountErr: "longer than"},
		{name: "loop after await", code: "await null; while (true) {}", mountErr: "longer than"},
		{name: "loop in apply", code: "return { name: 'r', apply(ctx) { for (;;) {} } }", mountErr: "longer than"},
		{name: "loop in async apply", code: "return { name: 'r', async apply(ctx) { await 0; for (;;) {} } }", mountErr: "longer than"},
		{name: "apply never settles", code: "return { name: 'r', apply(ctx) { return new Promise(() => {}) } }", mountErr: "longer than"},
		{name: "body never settles", code: "await new Promise(() => {})", mountErr: "longer than"},
		{name: "recursion", code: "function f(n) { return f(n + 1) + 1 } f(0)", mountErr: "dyn-"},
		{name: "recursion in apply", code: "return { name: 'r', apply(ctx) { const f = () => [f()]; f() } }", mountErr: "dyn-"},
		{name: "huge array", code: "const a = []; for (;;) a.push({ i: a.length })", mountErr: "longer than"},
		{name: "huge string", code: "let s = 'x'; for (;;) s += s.slice(0, 1 << 16) + 'y'", mountErr: "longer than"},
		{name: "huge repeat", code: "const s = 'x'.repeat(1 << 20); const parts = []; for (;;) parts.push(s + parts.length)", mountErr: "longer than"},
		{name: "loop in tool", code: tool("() => { for (;;) {} }"), after: "probe", callErr: "longer than"},
		{name: "tool never settles", code: tool("() => new Promise(() => {})"), after: "probe", callErr: "longer than"},
		{name: "recursion in tool", code: tool("() => { const f = () => f() + 1; return f() }"), after: "probe", callErr: "probe"},
		{name: "huge tool result", code: tool("() => { const a = []; for (let i = 0; i < 1e6; i++) a.push('xxxxxxxxxxxxxxxx'); return a }"), after: "probe", callErr: "probe"},
		{name: "loop in listener", code: "return { name: 'r', apply(ctx) { ctx.on('tools/change', () => { for (;;) {} }) } }", after: "trigger"},
		{name: "listener throws always", code: "return { name: 'r', apply(ctx) { ctx.on('tools/change', () => { throw new Error('every time') }) } }", after: "trigger"},
		{name: "listener recursion", code: "return { name: 'r', apply(ctx) { ctx.on('tools/change', function f() { return f() }) } }", after: "trigger"},
		{name: "loop in timer", code: "return { name: 'r', inject: ['timer'], apply(ctx) { ctx.setTimeout(() => { for (;;) {} }, 1) } }", after: "wait"},
		{name: "interval throws", code: "return { name: 'r', inject: ['timer'], apply(ctx) { ctx.setInterval(() => { throw new Error('tick') }, 5) } }", after: "wait"},
		{name: "loop in cross-mount call", code: "return { name: 'spin', apply(ctx) { ctx.provide('spinner', { spin() { for (;;) {} } }) } }", after: "cross", callErr: "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.t = t
			defer func() { h.t = nil }()
			start := time.Now()
			out, err := h.call("cordis_mount", map[string]string{"code": tc.code})
			var ids []string
			defer func() {
				for i := len(ids) - 1; i >= 0; i-- {
					h.mustCall("cordis_unmount", map[string]string{"id": ids[i]})
				}
			}()
			if tc.mountErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.mountErr) {
					t.Fatalf("mount: %s, %v; want an error containing %q", out, err, tc.mountErr)
				}
			} else {
				if err != nil {
					t.Fatalf("mount: %v", err)
				}
				var m mountOut
				_ = json.Unmarshal(out, &m)
				ids = append(ids, m.ID)
			}
			switch tc.after {
			case "probe":
				_, err := h.tools.Call(context.Background(), "probe", json.RawMessage(`{}`))
				if err == nil || !strings.Contains(err.Error(), tc.callErr) {
					t.Fatalf("probe: %v, want an error containing %q", err, tc.callErr)
				}
			case "trigger":
				ids = append(ids, h.mount(trigger).ID)
			case "wait":
				time.Sleep(250 * time.Millisecond)
			case "cross":
				ids = append(ids, h.mount("return { name: 'c', inject: ['spinner'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object' }, execute: () => ctx.spinner.spin() }) } }").ID)
				_, err := h.tools.Call(context.Background(), "probe", json.RawMessage(`{}`))
				if err == nil || !strings.Contains(err.Error(), tc.callErr) {
					t.Fatalf("cross-mount probe: %v, want an error containing %q", err, tc.callErr)
				}
			}
			h.checkCanary()
			h.inspect("", "")
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	h.t = t
}

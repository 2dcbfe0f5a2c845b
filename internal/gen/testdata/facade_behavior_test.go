// This file is overlaid into testdata/fixture/rt/api by TestGolden, next to the generated
// catalog and façade, and run there with go test: the generated bindings against the
// real sandbox.

package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/testdata/fixture/rt"
	"github.com/cordiskit/cordiskit/testdata/fixture/rt/api"
)

type fakeFS struct{ stopped bool }

func (f *fakeFS) ReadFile(ctx context.Context, path string) (string, error) {
	if path == "missing" {
		return "", errors.New("no such file")
	}
	return "content of " + path, nil
}

func (f *fakeFS) Stat(path string) (*rt.Info, bool) {
	if path == "missing" {
		return nil, false
	}
	return &rt.Info{Size: 42, Mode: 0o644}, true
}

func (f *fakeFS) Watch(c *kit.Context, path string, fn func(rt.Change, time.Duration)) (func(), error) {
	if c == nil {
		return nil, errors.New("no kit context")
	}
	fn(rt.Change{Path: path, Kind: "write"}, 1500*time.Millisecond) // inline, like an emit
	return func() { f.stopped = true }, nil
}

func (f *fakeFS) Head(path string, lines int16, opts *rt.HeadOptions) string {
	skip := uint8(0)
	if opts != nil {
		skip = opts.Skip
	}
	return fmt.Sprintf("%s:%d:%d", path, lines, skip)
}

func (f *fakeFS) Close() error { return nil }

const plugin = `
	const log = [];
	return {
		name: 'probe',
		inject: ['fs'],
		apply(ctx) {
			ctx.on('agent/error', (agent, turn, step, error) =>
				log.push(['error', agent.id, agent.status, agent.httpProxy, turn, step, error.message]));
			ctx.on('agent/pre-step', (agent, prompt) => prompt === 'skip');
			ctx.on('agent/request', async (agent, options, next) => {
				const o = await next();
				return { ...o, model: o.model + '+js', tools: [...o.tools, 'js'] };
			});
			ctx.on('pick', () => 'js-model');
			ctx.on('session/flush', async (session) => { log.push(['flush', session.id, session.events.length]) });
			const stop = ctx.fs.watch('/w', (change, at) => log.push(['watch', change.path, change.kind, at]));
			stop();
			ctx.tools.register({
				name: 'probe', description: 'Reports.', parameters: { type: 'object' },
				execute: async () => {
					const out = { log };
					out.stat = ctx.fs.stat('/a');
					out.statMissing = ctx.fs.stat('missing') === undefined;
					out.read = await ctx.fs.readFile('/a');
					try { await ctx.fs.readFile('missing') } catch (e) { out.readErr = e.message }
					try { ctx.fs.stat(7) } catch (e) { out.typeErr = e.name + ': ' + e.message }
					out.hidden = typeof ctx.fs.close;
					out.head = ctx.fs.head('/a', -32768, { skip: 255 });
					const tries = [[32768, undefined], [-32769, undefined], [2 ** 40, undefined], [1, { skip: 256 }], [1, { skip: -1 }]];
					out.rangeErrs = tries.map(([n, o]) => { try { return ctx.fs.head('/a', n, o) } catch (e) { return e.name + ': ' + e.message } });
					return out;
				},
			});
		},
	}`

func TestGeneratedFacade(t *testing.T) {
	ctx := context.Background()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	loop := sandbox.New(&sandbox.Options{Facade: api.Facade})
	defer loop.Close(ctx)
	defer root.Fiber().Dispose(ctx)
	fs := &fakeFS{}
	root.Plugin(&kit.Plugin{Name: "fs", Apply: func(c *kit.Context) error { return rt.FS.Provide(c, fs) }})

	m, err := loop.Evaluate(ctx, "dyn-1", plugin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Start(ctx, root); err != nil {
		t.Fatal(err)
	}

	proxy := "http://proxy"
	agent := &rt.Agent{ID: "a1", Status: rt.StatusRunning, HTTPProxy: &proxy}
	rt.AgentError.Emit(root, rt.AgentErrorEvent{Agent: agent, Turn: 2, Step: 3, Err: errors.New("boom")})
	if skip, err := rt.PreStep.Emit(ctx, root, rt.PreStepEvent{Agent: agent, Prompt: "skip"}); !skip || err != nil {
		t.Errorf("agent/pre-step: %v, %v; want the listener's true", skip, err)
	}
	if skip, _ := rt.PreStep.Emit(ctx, root, rt.PreStepEvent{Agent: agent, Prompt: "go"}); skip {
		t.Error("agent/pre-step bailed on false")
	}
	opts, err := rt.Request.Emit(ctx, root, rt.RequestEvent{Agent: agent}, func() (rt.Options, error) {
		return rt.Options{Model: "go", Tools: []string{"a"}}, nil
	})
	if err != nil || opts.Model != "go+js" || strings.Join(opts.Tools, ",") != "a,js" {
		t.Errorf("agent/request = %+v, %v", opts, err)
	}
	if got := rt.Pick.Emit(root, struct{}{}); got != "js-model" {
		t.Errorf("pick = %q", got)
	}
	sess := &rt.Session{Base: rt.Base{ID: "s1"}, Events: []rt.SessionEntry{{Seq: 1}}}
	if err := rt.SessionFlush.Emit(ctx, root, rt.SessionEvent{Session: sess}); err != nil {
		t.Error(err)
	}

	tools, _ := kit.ToolsService.Get(root)
	out, err := tools.Call(ctx, "probe", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"log":         `[["watch","/w","write",1500],["error","a1","running","http://proxy",2,3,"boom"],["flush","s1",1]]`,
		"stat":        `{"mode":420,"size":42}`,
		"statMissing": `true`,
		"read":        `"content of /a"`,
		"readErr":     `"no such file"`,
		"typeErr":     `"TypeError: fs.stat: parameter path: expected a string, got number"`,
		"hidden":      `"undefined"`,
		"head":        `"/a:-32768:255"`,
		"rangeErrs": `["TypeError: fs.head: parameter lines: expected an integer between -32768 and 32767, got 32768",` +
			`"TypeError: fs.head: parameter lines: expected an integer between -32768 and 32767, got -32769",` +
			`"TypeError: fs.head: parameter lines: expected an integer between -32768 and 32767, got 1099511627776",` +
			`"TypeError: fs.head: parameter opts.skip: expected an integer between 0 and 255, got 256",` +
			`"TypeError: fs.head: parameter opts.skip: expected an integer between 0 and 255, got -1"]`,
	} {
		b, _ := json.Marshal(got[key])
		if string(b) != want {
			t.Errorf("%s = %s, want %s", key, b, want)
		}
	}
	if !fs.stopped {
		t.Error("the disposer watch returned did not reach Go")
	}
}

// budgetPlugin passes values that are small in the JavaScript heap and huge once copied to
// the generated bindings: each conversion is refused by its budget, naming the path (the
// first big string fits the 8 MiB of MaxBytes, the second does not).
const budgetPlugin = `
	return {
		name: 'budget',
		inject: ['sessions'],
		apply(ctx) {
			const big = 'x'.repeat(8 << 20);
			const sparse = [];
			sparse.length = 2 ** 32 - 1;
			let dag = [0];
			for (let i = 0; i < 40; i++) dag = [dag, dag];
			const tries = {
				refs: () => ctx.sessions.flush(Array(200000).fill(big)),
				sparse: () => ctx.sessions.flush(sparse),
				dag: () => ctx.sessions.meta('k', dag),
				ok: () => { ctx.sessions.flush(['a', 'b']); return 'ok' },
			};
			ctx.tools.register({
				name: 'budget', description: 'Tries.', parameters: { type: 'object' },
				execute: () => {
					const out = {};
					for (const [k, f] of Object.entries(tries)) {
						try { out[k] = f() } catch (e) { out[k] = e.message }
					}
					return out;
				},
			});
		},
	}`

func TestGeneratedFacadeBudget(t *testing.T) {
	ctx := context.Background()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	loop := sandbox.New(&sandbox.Options{Facade: api.Facade})
	defer loop.Close(ctx)
	defer root.Fiber().Dispose(ctx)
	root.Plugin(&kit.Plugin{Name: "sessions", Apply: func(c *kit.Context) error { return rt.Sessions.Provide(c, rt.Store{}) }})
	m, err := loop.Evaluate(ctx, "dyn-1", budgetPlugin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Start(ctx, root); err != nil {
		t.Fatal(err)
	}
	tools, _ := kit.ToolsService.Get(root)
	start := time.Now()
	out, err := tools.Call(ctx, "budget", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the refusals took %v", d)
	}
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	teach := "; shared references count each time they are copied (the bound is Limits.%s); pass less, or page it"
	for key, want := range map[string]string{
		"refs":   "sessions.flush: parameter ids[1]: the value converts to more than 8388608 bytes of strings" + fmt.Sprintf(teach, "MaxBytes"),
		"sparse": "sessions.flush: parameter ids: the value converts to more than 1048576 elements (an array of length 4294967295)" + fmt.Sprintf(teach, "MaxNodes"),
		"dag":    "sessions.meta: parameter def[0][0]",
		"ok":     "ok",
	} {
		if !strings.HasPrefix(got[key], want) {
			t.Errorf("%s = %q, want it to start with %q", key, got[key], want)
		}
	}
	if !strings.Contains(got["dag"], "the value converts to more than 1048576 elements"+fmt.Sprintf(teach, "MaxNodes")) {
		t.Errorf("dag = %q, want the element bound", got["dag"])
	}
}

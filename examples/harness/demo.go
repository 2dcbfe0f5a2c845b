package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/cordis"
	rdecl "github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/cordiskit/cordiskit/toolset"
)

// demoSession is the session the scripted turn belongs to.
const demoSession = "demo"

// turnLog is the plugin the demo mounts: a listener on agent/turn-start that records the
// turn in kv, and a tool that reads the record back.
const turnLog = `return {
  name: 'turn-log',
  inject: ['kv'],
  apply(ctx) {
    ctx.on('agent/turn-start', (session, turn, prompt) => {
      ctx.kv.set('turn-log/last', session + ' turn ' + turn + ': ' + prompt)
    })
    ctx.tools.register({
      name: 'last_turn',
      description: 'Report the last turn the turn-log plugin saw.',
      parameters: { type: 'object', properties: {} },
      execute() {
        return { last: ctx.kv.get('turn-log/last') || 'no turn seen yet' }
      },
    })
  },
}`

// diskUsage uses a service it did not inject: the mount fails and says how to fix it.
const diskUsage = `return {
  name: 'disk-usage',
  apply(ctx) {
    const exec = ctx.exec
    ctx.tools.register({
      name: 'disk_usage',
      description: 'Report the size of the work directory.',
      parameters: { type: 'object', properties: {} },
      async execute() { return (await exec.shell('du -sh .')).stdout },
    })
  },
}`

// greeterV1 and greeterV2 are two Packages of one dynamic Plugin: a host half (it runs
// in this process) that registers a tool for the model and a handler a client half, or
// Go code of the session, calls with JSON.
const greeterV1 = `return {
  name: 'greeter',
  apply(ctx) {
    const greet = (name) => ({ greeting: 'hello, ' + name })
    harness.handle('greet', (args) => greet(args.name))
    ctx.tools.register({
      name: 'greet',
      description: 'Greet someone by name.',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      execute(args) { return greet(args.name) },
    })
  },
}`

const greeterV2 = `return {
  name: 'greeter',
  apply(ctx) {
    const greet = (name) => ({ greeting: 'Good day, ' + name + '!' })
    harness.handle('greet', (args) => greet(args.name))
    ctx.tools.register({
      name: 'greet',
      description: 'Greet someone by name, politely.',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      execute(args) { return greet(args.name) },
    })
  },
}`

// politely is the user's message of the dynamic act: it mentions the Plugin the model
// defined, in the middle of a sentence.
const politely = "Could @greet-1 greet people more politely?"

// demo plays the scripted session on a fresh harness in dir (the work directory and the
// state directory are made inside it) and writes the
// transcript to w. Every tool call goes through the runtime's CallTool, as an agent
// loop's would: tools/pre-execute, schema validation, then the tool. The transcript has
// no timestamps and no paths, so it is the same on every run. demo fails if a step does
// not go as scripted.
func demo(ctx context.Context, w io.Writer, dir string, logger *slog.Logger) (err error) {
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		return err
	}
	h, err := boot(work, filepath.Join(dir, "state"), logger)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, h.Close(context.WithoutCancel(ctx))) }()
	t := &transcript{w: w, h: h}

	fmt.Fprintln(w, "cordiskit demo: the example agent runtime (services fs, exec, kv; events")
	fmt.Fprintln(w, "agent/turn-start, tools/pre-execute, session/flush) with the three cordis mount")
	fmt.Fprintln(w, "tools and the seven tools of the dynamic-plugin runner.")
	fmt.Fprintln(w, "Each step is a tool call a model would make, and its result.")

	t.step("The model reads the events it can listen to and the api of the service it will use.")
	t.call(ctx, succeeds, cordis.Inspect.Name(), `{"what":"events"}`)
	t.call(ctx, succeeds, cordis.Inspect.Name(), `{"what":"api","name":"kv"}`)

	t.step("It mounts a plugin that listens to agent/turn-start and registers a tool for itself.")
	t.call(ctx, succeeds, cordis.Mount.Name(), mountArgs(turnLog))

	t.step("The new tool is callable at once. No turn has started yet.")
	t.call(ctx, succeeds, "last_turn", `{}`)

	t.step("The runtime begins a turn, which emits agent/turn-start; the plugin's listener runs.")
	t.runtime(fmt.Sprintf("rt.BeginTurn(%q, %q)", demoSession, "list the files"), func() string {
		turn := h.rt.BeginTurn(demoSession, "list the files")
		return fmt.Sprintf("turn %d began; agent/turn-start was emitted", turn)
	})
	t.call(ctx, succeeds, "last_turn", `{}`)
	t.runtime(`rt.Store().Get("turn-log/last")`, func() string {
		return fmt.Sprintf("%q (the listener's write, read from Go)", h.rt.Store().Get("turn-log/last"))
	})

	t.step("A mount that uses a service it did not inject fails, leaves nothing behind, and says why.")
	t.call(ctx, fails, cordis.Mount.Name(), mountArgs(diskUsage))

	t.step("Unmounting removes the plugin with its listener and its tool.")
	t.call(ctx, succeeds, cordis.Unmount.Name(), `{"id":"dyn-1"}`)
	t.call(ctx, succeeds, cordis.Inspect.Name(), `{"what":"temporary"}`)
	t.call(ctx, fails, "last_turn", `{}`)

	dynamicAct(ctx, t)
	return t.err
}

// dynamicAct is the runner's part of the demo: a Plugin the session keeps, with versioned
// Packages, instead of a throw-away mount.
func dynamicAct(ctx context.Context, t *transcript) {
	t.step("The runtime's system prompt carries the runner's section: the workflow, what each run status means, @pluginId mentions, the code rules (go run ./examples/harness prompt prints it).")
	t.runtime("headings(systemPrompt())", func() string { return headings(t.h.systemPrompt()) })

	t.step("The model defines a dynamic Plugin: a Package whose host half registers a tool and a handler. Defining runs nothing.")
	t.call(ctx, succeeds, rdecl.Define.Name(), defineArgs(`{"kind":"new","idPrefix":"greet"}`, "Greeter", "Greets people by name.", greeterV1))

	t.step("It runs the Package. A host-only Package starts inside the call; its tool is callable at once.")
	t.call(ctx, succeeds, rdecl.Run.Name(), `{"pluginId":"greet-1","packageId":"pkg-1","mode":"run"}`)
	t.call(ctx, succeeds, "greet", `{"name":"Ada"}`)

	t.step("Go code of the session invokes the run's handler, as a page's host.call does: the runtime's own code needs no run capability, and a session on ctx scopes it to that session's Plugins.")
	t.runtime(`r.Invoke(ctx, &runner.InvokeParams{PluginID: "greet-1", Method: "greet", Args: {"name":"Grace"}})`, func() string {
		out, err := t.h.r.Invoke(kit.WithSession(ctx, demoSession), &runner.InvokeParams{PluginID: "greet-1", Method: "greet", Args: map[string]string{"name": "Grace"}})
		if err != nil {
			t.fail("Invoke", err)
			return err.Error()
		}
		return string(out)
	})

	t.step("The user asks for a change and names the Plugin. The runtime begins the turn and puts the reference block after the user's message: the Plugin's state and how to change that exact Plugin.")
	t.runtime(fmt.Sprintf("userTurn(ctx, %q, %q)", demoSession, politely), func() string {
		turn, blocks := t.h.userTurn(ctx, demoSession, politely)
		if len(blocks) != 1 {
			t.fail("userTurn", fmt.Errorf("%d reference blocks for one mention", len(blocks)))
		}
		return fmt.Sprintf("turn %d began; the model reads after the user's message:\n%s", turn, strings.Join(blocks, "\n"))
	})

	t.step("As the block says, it defines a new Package on the same Plugin and updates to it: the old run stops first.")
	t.call(ctx, succeeds, rdecl.Define.Name(), defineArgs(`{"kind":"existing","pluginId":"greet-1"}`, "Polite greeter", "Greets people by name, politely.", greeterV2))
	t.call(ctx, succeeds, rdecl.Run.Name(), `{"pluginId":"greet-1","packageId":"pkg-2","mode":"update"}`)
	t.call(ctx, succeeds, "greet", `{"name":"Ada"}`)
	t.call(ctx, succeeds, rdecl.InspectSelf.Name(), `{"pluginId":"greet-1"}`)

	t.step("Stopping keeps the Plugin and its Packages; what the host half registered is gone.")
	t.call(ctx, succeeds, rdecl.Stop.Name(), `{"pluginId":"greet-1"}`)
	t.call(ctx, fails, "greet", `{"name":"Ada"}`)

	t.step("Undefining removes the Plugin with all its Packages.")
	t.call(ctx, succeeds, rdecl.Undefine.Name(), `{"pluginId":"greet-1"}`)
	t.call(ctx, succeeds, rdecl.InspectSelf.Name(), `{}`)
}

func defineArgs(plugin, name, purpose, host string) string {
	var target rdecl.Target
	_ = json.Unmarshal([]byte(plugin), &target)
	b, _ := json.Marshal(rdecl.DefineInput{Plugin: target, Name: name, Purpose: purpose, Code: rdecl.Code{Host: &host}})
	return string(b)
}

// fail records a runtime step that went off script.
func (t *transcript) fail(what string, err error) {
	if t.err == nil {
		t.err = fmt.Errorf("demo step %d: %s: went off script (error: %v)", t.n, what, err)
	}
}

func mountArgs(code string) string {
	b, _ := json.Marshal(cordis.MountInput{Code: code})
	return string(b)
}

// expect says whether a scripted call is meant to succeed.
type expect bool

const (
	succeeds expect = false
	fails    expect = true
)

// A transcript prints the steps of the demo and remembers the first that went off script.
type transcript struct {
	w   io.Writer
	h   *harness
	n   int
	err error
}

func (t *transcript) step(why string) {
	t.n++
	fmt.Fprintf(t.w, "\n%d. %s\n", t.n, why)
}

// call makes a tool call through the runtime and prints its title, arguments and result.
func (t *transcript) call(ctx context.Context, want expect, tool, args string) {
	fmt.Fprintf(t.w, "\n  ▶ %s\n", title(tool, args))
	if tool == cordis.Mount.Name() {
		var in cordis.MountInput
		_ = json.Unmarshal([]byte(args), &in)
		fmt.Fprintf(t.w, "    %s code:\n", tool)
		printBlock(t.w, "      ", in.Code)
	} else if tool == rdecl.Define.Name() {
		var in rdecl.DefineInput
		_ = json.Unmarshal([]byte(args), &in)
		fmt.Fprintf(t.w, "    %s plugin:%s code.host:\n", tool, mustJSON(in.Plugin))
		printBlock(t.w, "      ", *in.Code.Host)
	} else {
		fmt.Fprintf(t.w, "    %s %s\n", tool, args)
	}
	out, err := t.h.rt.CallTool(ctx, demoSession, tool, json.RawMessage(args))
	if err != nil {
		fmt.Fprintln(t.w, "  ✗ error:")
		printBlock(t.w, "    ", err.Error())
	} else {
		fmt.Fprintln(t.w, "  ◀")
		printBlock(t.w, "    ", render(tool, out))
	}
	if t.err == nil && (err != nil) != bool(want) {
		t.err = fmt.Errorf("demo step %d: %s: went off script (error: %v)", t.n, tool, err)
	}
}

// runtime runs a Go call of the runtime's own (not a tool call) and prints what it did.
func (t *transcript) runtime(what string, fn func() string) {
	fmt.Fprintf(t.w, "\n  ▶ runtime: %s\n", what)
	fmt.Fprintln(t.w, "  ◀")
	printBlock(t.w, "    ", fn())
}

// title is the one-line title of a tool call, as a transcript or UI card shows it.
func title(tool, args string) string {
	var raw map[string]any
	_ = json.Unmarshal([]byte(args), &raw)
	strs := map[string]string{}
	for k, v := range raw {
		if s, ok := v.(string); ok {
			strs[k] = s
		}
	}
	if t := toolset.Title(tool, strs); t != tool {
		return t
	}
	if t := runner.Title(tool, json.RawMessage(args)); t != "" {
		return t
	}
	return "Call tool " + tool
}

// render turns a tool's JSON result into the text a person reads.
func render(tool string, out json.RawMessage) string {
	switch tool {
	case cordis.Mount.Name():
		var m cordis.MountOutput
		if json.Unmarshal(out, &m) == nil {
			return toolset.RenderMount(m)
		}
	case cordis.Unmount.Name():
		var u cordis.UnmountOutput
		if json.Unmarshal(out, &u) == nil {
			return toolset.RenderUnmount(u)
		}
	}
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Indent(&b, out, "", "  ") == nil {
		return b.String()
	}
	return string(out)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func printBlock(w io.Writer, indent, text string) {
	for line := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintln(w, strings.TrimRight(indent+line, " "))
	}
}

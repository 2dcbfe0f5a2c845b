package cordiskit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit"
	"github.com/cordiskit/cordiskit/internal/helpdesk"
	"github.com/cordiskit/cordiskit/internal/helpdesk/cordisapi"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/panel"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/toolset"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cordisTools are the ten tools New wires by default: the toolset's three, then the
// runner's seven, in the order they register.
var cordisTools = []string{
	"cordis_inspect", "cordis_mount", "cordis_unmount",
	"cordis_inspect_list", "cordis_inspect_query", "cordis_inspect_self",
	"cordis_define", "cordis_run", "cordis_stop", "cordis_undefine",
}

// fileTicket runs helpdesk.OpenTicket in the tests.
func fileTicket(context.Context, helpdesk.Ticket) (helpdesk.TicketNumber, error) {
	return helpdesk.TicketNumber{Number: 1}, nil
}

func names(schemas []kit.ToolSchema) []string {
	var ns []string
	for _, s := range schemas {
		ns = append(ns, s.Name)
	}
	return ns
}

// registered lists the tools root's registry holds, as the runtime's own code sees them.
func registered(t *testing.T, root *kit.Context) []string {
	t.Helper()
	tools, ok := kit.ToolsService.Get(root)
	if !ok {
		t.Fatal("the root has no tools registry")
	}
	return names(tools.Schemas())
}

func TestNewDefaults(t *testing.T) {
	ctx := context.Background()
	rt, err := cordiskit.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cordisTools, names(rt.Invoker().Tools())); diff != "" {
		t.Errorf("New(nil, nil) serves (-want +got):\n%s", diff)
	}
	if rt.Toolset() == nil || rt.Runner() == nil || rt.Panel() != nil {
		t.Errorf("pieces: toolset %v, runner %v, panel %v; want a toolset, a runner and no panel", rt.Toolset(), rt.Runner(), rt.Panel())
	}
	st, _ := mcp.NewInMemoryTransports()
	if err := rt.ServeMCP(ctx, st); err == nil || !strings.Contains(err.Error(), "Options.MCP") {
		t.Errorf("ServeMCP without Options.MCP = %v; want an error naming Options.MCP", err)
	}
	root := rt.Root().Fiber()
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := root.State(); got != kit.StateDisposed {
		t.Errorf("after Close the root New made is %v; want disposed", got)
	}
}

// A root of the caller's stays the caller's: Close takes off what New put on it, and
// nothing more.
func TestCallersRootStays(t *testing.T) {
	ctx := context.Background()
	root := kit.New(nil)
	defer root.Fiber().Dispose(ctx)
	before := root.Fiber().Children()
	rt, err := cordiskit.New(root, &cordiskit.Options{Catalog: cordisapi.Catalog, Facade: cordisapi.Facade})
	if err != nil {
		t.Fatal(err)
	}
	if err := cordiskit.AddTool(rt, helpdesk.OpenTicket, fileTicket); err != nil {
		t.Fatal(err)
	}
	if got := registered(t, root); len(got) != len(cordisTools)+1 {
		t.Fatalf("while open the registry holds %v", got)
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := root.Fiber().State(); got != kit.StateActive {
		t.Errorf("after Close the caller's root is %v; want active", got)
	}
	if got := registered(t, root); len(got) != 0 {
		t.Errorf("after Close the caller's registry still holds %v", got)
	}
	if diff := cmp.Diff(fiberNames(before), fiberNames(root.Fiber().Children())); diff != "" {
		t.Errorf("after Close the root's children differ from before New (-before +after):\n%s", diff)
	}
}

func fiberNames(fs []*kit.Fiber) []string {
	var ns []string
	for _, f := range fs {
		if f.State() != kit.StateDisposed {
			ns = append(ns, f.Name())
		}
	}
	return ns
}

func TestNoMountsNoRunner(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts cordiskit.Options
		want []string
	}{
		{"no mounts", cordiskit.Options{NoMounts: true}, cordisTools[3:]},
		{"no runner", cordiskit.Options{NoRunner: true}, cordisTools[:3]},
		{"neither", cordiskit.Options{NoMounts: true, NoRunner: true}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := cordiskit.New(nil, &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close(context.Background())
			if diff := cmp.Diff(tc.want, names(rt.Invoker().Tools())); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if (rt.Toolset() == nil) != tc.opts.NoMounts || (rt.Runner() == nil) != tc.opts.NoRunner {
				t.Errorf("toolset %v, runner %v for %+v", rt.Toolset(), rt.Runner(), tc.opts)
			}
			// The gate chains what is wired; with nothing, a control tool's ctx is unchanged.
			ctx := context.Background()
			if gctx := rt.GateContext(ctx, "cordis_stop"); tc.opts.NoMounts && tc.opts.NoRunner && gctx != ctx {
				t.Error("GateContext with no toolset and no runner changed the ctx")
			}
		})
	}
}

// Options that contradict each other are refused with the field to change, and a
// PanelListener New was given is closed: New took it over.
func TestOptionsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts cordiskit.Options
		want string
	}{
		{"two stores", cordiskit.Options{StoreFile: "x.db", Runner: &runner.Options{Store: runner.NewMemoryStore()}}, "StoreFile and Options.Runner.Store"},
		{"runner options without a runner", cordiskit.Options{NoRunner: true, Runner: &runner.Options{}}, "NoRunner"},
		{"a store without a runner", cordiskit.Options{NoRunner: true, StoreFile: "x.db"}, "NoRunner"},
		{"a panel without a runner", cordiskit.Options{NoRunner: true, Panel: &panel.Options{}}, "drop Panel or NoRunner"},
		{"mount options without mounts", cordiskit.Options{NoMounts: true, Mounts: &toolset.Options{}}, "NoMounts"},
		{"a listener without a panel", cordiskit.Options{}, "PanelListener needs Options.Panel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln := listen(t)
			tc.opts.PanelListener = ln
			if tc.name != "a listener without a panel" && tc.opts.Panel == nil {
				tc.opts.Panel = &panel.Options{}
			}
			rt, err := cordiskit.New(nil, &tc.opts)
			if err == nil {
				rt.Close(context.Background())
				t.Fatalf("New(%+v) succeeded", tc.opts)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New: %v; want it to say %q", err, tc.want)
			}
			if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
				t.Errorf("after a refused New, Accept on its PanelListener = %v; want net.ErrClosed", err)
			}
		})
	}
}

// A piece that fails to start fails New, which takes down what it started: here the
// store file is a directory.
func TestNewFailsCleanly(t *testing.T) {
	ctx := context.Background()
	root := kit.New(nil)
	defer root.Fiber().Dispose(ctx)
	ln := listen(t)
	_, err := cordiskit.New(root, &cordiskit.Options{StoreFile: t.TempDir(), Panel: &panel.Options{}, PanelListener: ln})
	if err == nil || !strings.Contains(err.Error(), "cordiskit: the runner's store") {
		t.Fatalf("New with a directory as StoreFile = %v; want the store's refusal", err)
	}
	if got := registered(t, root); len(got) != 0 {
		t.Errorf("after a failed New the registry holds %v", got)
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("after a failed New, Accept on its PanelListener = %v; want net.ErrClosed", err)
	}
}

// The store New opens keeps the Plugins across a restart, and Close closes it: the
// next Runtime opens the same file (sqlstore locks it while open).
func TestStoreFile(t *testing.T) {
	ctx := context.Background()
	file := t.TempDir() + "/definitions.db"
	rt, err := cordiskit.New(nil, &cordiskit.Options{StoreFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Invoker().InvokeSession(ctx, "ada", "cordis_define", json.RawMessage(`{"plugin":{"kind":"new","idPrefix":"clock"},"name":"Clock","purpose":"Shows the time.","code":{"host":"return (ctx) => {}"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := cordiskit.New(nil, &cordiskit.Options{StoreFile: file})
	if err != nil {
		t.Fatalf("reopening the store Close closed: %v", err)
	}
	defer again.Close(ctx)
	out, err := again.Invoker().InvokeSession(ctx, "ada", "cordis_inspect_self", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(string(out), `"clock-1"`) {
		t.Errorf("after the restart ada's inspect_self = %s, %v; want clock-1", out, err)
	}
}

// The assembly widens no session's view: a tool alice's host half registers is hers
// alone, while a tool the runtime added is everyone's.
func TestSessionsStayScoped(t *testing.T) {
	ctx := context.Background()
	rt, err := cordiskit.New(nil, &cordiskit.Options{Catalog: cordisapi.Catalog, Facade: cordisapi.Facade})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	if err := cordiskit.AddTool(rt, helpdesk.OpenTicket, fileTicket); err != nil {
		t.Fatal(err)
	}
	inv := rt.Invoker()
	host := `return { name: 'notes', apply(ctx) { ctx.tools.register({ name: 'alice_notes', description: 'Her notes.', parameters: { type: 'object' }, execute() { return 'hers' } }) } }`
	define, _ := json.Marshal(map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": "notes"}, "name": "Notes", "purpose": "Keeps notes.", "code": map[string]string{"host": host}})
	if _, err := inv.InvokeSession(ctx, "alice", "cordis_define", define); err != nil {
		t.Fatal(err)
	}
	if _, err := inv.InvokeSession(ctx, "alice", "cordis_run", json.RawMessage(`{"pluginId":"notes-1","packageId":"pkg-1","mode":"run"}`)); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names(inv.ToolsFor("alice")), "alice_notes") {
		t.Fatalf("alice's tools %v lack the one her host half registered", names(inv.ToolsFor("alice")))
	}
	bobs := names(inv.ToolsFor("bob"))
	if slices.Contains(bobs, "alice_notes") || !slices.Contains(bobs, "open_ticket") {
		t.Errorf("bob's tools %v: want open_ticket (the runtime's) and not alice_notes", bobs)
	}
	// The error names the tool bob asked for, once, and lists none of alice's.
	if out, err := inv.InvokeSession(ctx, "bob", "alice_notes", nil); !errors.Is(err, kit.ErrUnknownTool) || strings.Count(err.Error(), "alice_notes") != 1 {
		t.Errorf("bob calls alice_notes: %s, %v; want an unknown tool that lists nothing of alice's", out, err)
	}
	if out, err := inv.InvokeSession(ctx, "bob", "cordis_stop", json.RawMessage(`{"pluginId":"notes-1"}`)); err == nil {
		t.Errorf("bob stops alice's notes-1: %s; want a refusal", out)
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

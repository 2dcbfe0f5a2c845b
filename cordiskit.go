package cordiskit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/panel"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/sqlstore"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl"
	"github.com/cordiskit/cordiskit/toolset"
)

// Options configures a Runtime. A nil *Options means defaults: the toolset and the
// runner with the kit's core tier, the runner's definitions in memory, no panel and no
// MCP server.
type Options struct {
	// Catalog and Facade are the runtime's generated catalog and façade (the cordisapi
	// package gen-cordis-api writes). The kit's core tier is merged in; nil means the
	// core tier alone. AddTool looks tools up in the merged catalog.
	Catalog *catalog.Catalog
	Facade  *sandbox.Facade
	// Logger receives every piece's reports; nil means the root's (slog.Default() for a
	// root New makes).
	Logger *slog.Logger

	// Mounts configures the toolset (cordis_inspect, cordis_mount, cordis_unmount); nil
	// means defaults. Its Catalog, Facade and Logger, when nil, are the ones above.
	Mounts *toolset.Options
	// NoMounts leaves the toolset out: no throw-away mounts.
	NoMounts bool

	// Runner configures the dynamic-plugin runner and its seven tools; nil means
	// defaults. Its Catalog, Facade and Logger, when nil, are the ones above; its Store,
	// when nil, is StoreFile's, else in memory. A Store set here stays the caller's:
	// Close does not close it.
	Runner *runner.Options
	// NoRunner leaves the runner out: no dynamic Plugins, and so no panel.
	NoRunner bool
	// StoreFile, if set, is the SQLite file (runner/sqlstore) the runner keeps its
	// definitions in, created when missing; New opens it and Close closes it after the
	// runner. Keep it out of every directory a service serves, so that no host half can
	// rewrite its own grants. It cannot be combined with Runner.Store.
	StoreFile string

	// Panel, if non-nil, makes the panel over the runner (Runtime.Panel), an http.Handler
	// to serve; its Logger, when nil, is the one above.
	Panel *panel.Options
	// PanelListener, if non-nil, is where the Runtime serves the panel, with the server
	// bounds the panel package recommends, until Close. New takes it over: Close, or a New
	// that fails, closes it. It needs Panel.
	PanelListener net.Listener

	// MCP, if non-nil, is what ServeMCP and ServeMCPHTTP serve the runtime's tools with
	// (&mcpkit.Options{} means mcpkit's defaults). Its Messages, when nil, is the runner,
	// so the runner's messages for a session reach that session's client.
	MCP *mcpkit.Options
}

// ErrClosed is returned by ServeMCP, ServeMCPHTTP and AddTool once Close has begun.
var ErrClosed = errors.New("cordiskit: the runtime is closed")

// A Runtime is a kit root with the pieces Options asked for wired onto it. Its methods
// are safe for concurrent use. Close it when done.
type Runtime struct {
	root    *kit.Context
	ownRoot bool // New made root: Close disposes it
	cat     *catalog.Catalog
	opts    Options

	toolset *toolset.Toolset
	runner  *runner.Runner
	store   *sqlstore.Store // opened from StoreFile: Close closes it
	inv     *invoke.Invoker
	tools   *kit.Fiber // "cordiskit": the tools AddTool registered

	panel     *panel.Handler
	panelSrv  *http.Server
	panelDone chan error // the panel server's Serve, once it returned
	panelLn   net.Listener

	mu      sync.Mutex
	closing bool
	serves  map[*serve]struct{} // ServeMCP and ServeMCPHTTP calls in progress
	drained chan struct{}       // closed once closing and no serve is in progress

	closed   chan struct{} // closed when the first Close is complete
	closeErr error
}

// New wires the pieces opts asks for onto root and returns the Runtime that holds them.
// A nil root means a new one (kit.New), which Close disposes; a root of the caller's
// stays the caller's, to dispose after Close. A nil opts means defaults. When a piece
// fails to start, New takes down what it started and returns the error, which says which
// piece failed.
func New(root *kit.Context, opts *Options) (*Runtime, error) {
	rt := &Runtime{root: root, serves: map[*serve]struct{}{}, drained: make(chan struct{}), closed: make(chan struct{})}
	if opts != nil {
		rt.opts = *opts
	}
	o := &rt.opts
	if err := o.check(); err != nil {
		return nil, closeListener(o.PanelListener, err)
	}
	if rt.root == nil {
		rt.root, rt.ownRoot = kit.New(&kit.Options{Logger: o.Logger}), true
	}
	if err := rt.start(); err != nil {
		return nil, errors.Join(err, rt.Close(context.Background()))
	}
	return rt, nil
}

// check refuses options that contradict each other, saying which field to change.
func (o *Options) check() error {
	switch {
	case o.StoreFile != "" && o.Runner != nil && o.Runner.Store != nil:
		return errors.New("cordiskit: Options.StoreFile and Options.Runner.Store both name the runner's store; set one")
	case o.NoRunner && (o.Runner != nil || o.StoreFile != ""):
		return errors.New("cordiskit: Options.NoRunner leaves the runner out, but Options.Runner or StoreFile configures it; drop one")
	case o.NoRunner && o.Panel != nil:
		return errors.New("cordiskit: the panel shows the runner's Plugins, and Options.NoRunner leaves the runner out; drop Panel or NoRunner")
	case o.NoMounts && o.Mounts != nil:
		return errors.New("cordiskit: Options.NoMounts leaves the toolset out, but Options.Mounts configures it; drop one")
	case o.PanelListener != nil && o.Panel == nil:
		return errors.New("cordiskit: Options.PanelListener needs Options.Panel (&panel.Options{} for defaults)")
	}
	return nil
}

// closeListener closes ln, if any, and joins its error to err.
func closeListener(ln net.Listener, err error) error {
	if ln == nil {
		return err
	}
	return errors.Join(err, ln.Close())
}

// start starts every piece, in the order Close reverses. What it started is in rt's
// fields, for shutdown to take down when it fails.
func (rt *Runtime) start() error {
	o := &rt.opts
	rt.panelLn = o.PanelListener
	cat, err := catalog.Merge(generated.Catalog, o.Catalog)
	if err != nil {
		return fmt.Errorf("cordiskit: merging Options.Catalog with the core tier: %w", err)
	}
	rt.cat = cat
	rt.inv, err = invoke.NewInvoker(rt.root)
	if err != nil {
		return fmt.Errorf("cordiskit: the invoker: %w", err)
	}
	rt.tools = rt.root.Plugin(&kit.Plugin{Name: "cordiskit", Inject: []string{kit.ToolsService.Key()}, Apply: func(*kit.Context) error { return nil }})
	if err := rt.tools.Err(); err != nil {
		return fmt.Errorf("cordiskit: the runtime's tools: %w", err)
	}
	if !o.NoMounts {
		to := toolset.Options{}
		if o.Mounts != nil {
			to = *o.Mounts
		}
		to.Catalog = cmp.Or(to.Catalog, o.Catalog)
		to.Facade = cmp.Or(to.Facade, o.Facade)
		to.Logger = cmp.Or(to.Logger, o.Logger)
		if rt.toolset, err = toolset.New(rt.root, &to); err != nil {
			return fmt.Errorf("cordiskit: the toolset: %w", err)
		}
	}
	if !o.NoRunner {
		if err := rt.startRunner(); err != nil {
			return err
		}
	}
	if o.Panel != nil {
		return rt.startPanel()
	}
	return nil
}

// startRunner opens StoreFile, if set, and starts the runner.
func (rt *Runtime) startRunner() error {
	o := &rt.opts
	ro := runner.Options{}
	if o.Runner != nil {
		ro = *o.Runner
	}
	ro.Facade = cmp.Or(ro.Facade, o.Facade)
	ro.Catalog = cmp.Or(ro.Catalog, o.Catalog)
	ro.Logger = cmp.Or(ro.Logger, o.Logger)
	if o.StoreFile != "" {
		s, err := sqlstore.Open(context.Background(), o.StoreFile, nil)
		if err != nil {
			return fmt.Errorf("cordiskit: the runner's store: %w", err)
		}
		rt.store, ro.Store = s, s
	}
	r, err := runner.New(rt.root, &ro)
	if err != nil {
		return fmt.Errorf("cordiskit: the runner: %w", err)
	}
	rt.runner = r
	return nil
}

// startPanel makes the panel over the runner and serves it on PanelListener, if set.
func (rt *Runtime) startPanel() error {
	o := &rt.opts
	po := *o.Panel
	po.Logger = cmp.Or(po.Logger, o.Logger)
	h, err := panel.New(rt.runner, &po)
	if err != nil {
		return fmt.Errorf("cordiskit: the panel: %w", err)
	}
	rt.panel = h
	if rt.panelLn == nil {
		return nil
	}
	// The handler bounds each request's body (panel.Options.MaxBodyBytes, BodyTimeout);
	// the server bounds its head and the connections that wait between requests.
	rt.panelSrv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	rt.panelDone = make(chan error, 1)
	go func() { rt.panelDone <- rt.panelSrv.Serve(rt.panelLn) }()
	return nil
}

// Root returns the kit root the pieces run on: start the runtime's own plugins on it.
func (rt *Runtime) Root() *kit.Context { return rt.root }

// Catalog returns the runtime's catalog merged with the kit's core tier: what AddTool
// looks tools up in.
func (rt *Runtime) Catalog() *catalog.Catalog { return rt.cat }

// Toolset returns the mount manager and its three tools; nil with Options.NoMounts.
func (rt *Runtime) Toolset() *toolset.Toolset { return rt.toolset }

// Runner returns the dynamic-plugin runner; nil with Options.NoRunner.
func (rt *Runtime) Runner() *runner.Runner { return rt.runner }

// Invoker returns the invoker an agent loop lists and calls the tools through
// (Invoker.ToolsFor and Invoker.InvokeSession for one session's model).
func (rt *Runtime) Invoker() *invoke.Invoker { return rt.inv }

// Panel returns the panel's handler; nil without Options.Panel. When PanelListener is
// set the Runtime serves it there; otherwise mount it in a server of your own (give that
// server the bounds of the panel package doc, "Limits").
func (rt *Runtime) Panel() *panel.Handler { return rt.panel }

// GateContext prepares the ctx of a runtime's gate (a waterfall every tool call passes,
// such as tools/pre-execute) for a call of tool: for the cordis control tools that
// inspect, stop and remove dynamic code (tooldecl.ControlTools), the emit passes over
// every listener a mount or a host half registered, so that no such code can veto,
// rewrite, stall or read those calls. Other tools' calls are unchanged. It is
// tooldecl.Shield with the fibers of the pieces wired: the toolset's and the runner's.
func (rt *Runtime) GateContext(ctx context.Context, tool string) context.Context {
	var owners [2]*kit.Fiber
	if rt.toolset != nil {
		owners[0] = rt.toolset.Fiber()
	}
	if rt.runner != nil {
		owners[1] = rt.runner.Fiber()
	}
	return tooldecl.Shield(ctx, tool, owners[:]...)
}

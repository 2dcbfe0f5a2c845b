package kit

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
)

// Options configures a runtime. A nil *Options means defaults.
type Options struct {
	// Logger receives reports of recovered panics, failed plugins and teardown errors.
	// Nil means slog.Default().
	Logger *slog.Logger
}

// A Context is a fiber's view onto the runtime graph: what a plugin's Apply receives, and
// what every registration goes through. Registrations made through a Context are effects of
// its fiber.
type Context struct {
	fiber *Fiber
}

// root is the state shared by every fiber of one runtime.
type root struct {
	logger *slog.Logger
	ids    atomic.Uint64
	hubs   hubTable

	mu         sync.Mutex
	fibers     map[*Fiber]struct{} // live fibers; listings sort them by id (creation order)
	dependents map[string][]*Fiber
	services   map[svcKey]*serviceEntry
	owned      map[*Fiber][]string // service keys by providing fiber
	seq        uint64
}

// New starts a runtime and returns its root Context. The root fiber is active at once and
// runs two built-in plugins: "tools" provides the tool registry (ToolsService) and "timer"
// provides timers (TimerService). Dispose the root fiber to stop everything:
//
//	root := kit.New(nil)
//	defer root.Fiber().Dispose(context.Background())
func New(opts *Options) *Context {
	r := &root{
		logger:     slog.Default(),
		fibers:     map[*Fiber]struct{}{},
		dependents: map[string][]*Fiber{},
		services:   map[svcKey]*serviceEntry{},
		owned:      map[*Fiber][]string{},
	}
	if opts != nil && opts.Logger != nil {
		r.logger = opts.Logger
	}
	f := &Fiber{id: r.ids.Add(1), root: r, name: "root", apply: func(*Context) error { return nil }}
	f.ctx = &Context{fiber: f}
	f.scope = newScope()
	f.setState(StateActive)
	r.fibers[f] = struct{}{}

	tools := &Tools{reg: &toolRegistry{root: f.ctx, byName: map[string]*toolEntry{}}}
	f.ctx.Plugin(&Plugin{Name: "tools", Apply: func(c *Context) error { return ToolsService.Provide(c, tools) }})
	f.ctx.Plugin(&Plugin{Name: "timer", Apply: func(c *Context) error { return TimerService.Provide(c, &Timer{}) }})
	return f.ctx
}

// Fiber returns the fiber this Context belongs to.
func (c *Context) Fiber() *Fiber { return c.fiber }

// Logger returns the runtime's logger.
func (c *Context) Logger() *slog.Logger { return c.fiber.root.logger }

// Plugin starts p as a child fiber of c's fiber and returns it. If p's injects are all
// available, Apply runs before Plugin returns and the fiber is active or failed; otherwise
// it is pending and loads when they appear. The child is an effect of c's fiber.
//
// Plugin panics if p or p.Apply is nil (a programmer error). A plugin without a name, or
// started on a fiber that is not loading or active, comes back failed with an error that
// says so.
func (c *Context) Plugin(p *Plugin) *Fiber {
	if p == nil || p.Apply == nil {
		panic("kit: Context.Plugin called with a nil *Plugin or a nil Apply")
	}
	parent := c.fiber
	r := parent.root
	f := &Fiber{id: r.ids.Add(1), root: r, parent: parent, name: p.Name, session: cmp.Or(parent.session, p.Session),
		shares: slices.Clone(p.Shares), inject: slices.Clone(p.Inject), apply: p.Apply}
	f.ctx = &Context{fiber: f}
	if p.Name == "" {
		return failed(f, fmt.Errorf("kit: plugin has no Name; set Plugin.Name so inspection and errors can name it"))
	}
	if p.Session != "" && p.Session != f.session {
		return failed(f, fmt.Errorf("kit: plugin %q names session %q, but it would run under plugin %q of session %q; a session's plugins start only plugins of their own session: %w",
			p.Name, p.Session, parent.name, parent.session, ErrSession))
	}
	for _, k := range p.Inject {
		if k == "" {
			return failed(f, fmt.Errorf("kit: plugin %q injects an empty service key; list service keys such as \"tools\"", p.Name))
		}
	}
	eff, err := parent.addEffect(label{"plugin", p.Name}, nil, f.Dispose)
	if err != nil {
		return failed(f, err)
	}
	f.mu.Lock()
	f.parentEff = eff
	f.mu.Unlock()
	r.addFiber(f)
	f.reconcile()
	return f
}

func failed(f *Fiber, err error) *Fiber {
	f.err = err
	f.setState(StateFailed)
	return f
}

// Effect registers dispose to run when c's fiber is disposed or unloads, in reverse order
// of registration with everything else the fiber registered.
func (c *Context) Effect(dispose func() error) error {
	if c == nil {
		return ErrNilContext
	}
	if dispose == nil {
		return fmt.Errorf("kit: Effect needs a non-nil dispose func")
	}
	_, err := c.fiber.addEffect(label{kind: "effect"}, nil, func(context.Context) error { return dispose() })
	return err
}

func (r *root) addFiber(f *Fiber) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fibers[f] = struct{}{}
	for _, k := range f.inject {
		r.dependents[k] = append(r.dependents[k], f)
	}
}

func (r *root) removeFiber(f *Fiber) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.fibers, f)
	for _, k := range f.inject {
		r.dependents[k] = slices.DeleteFunc(r.dependents[k], func(x *Fiber) bool { return x == f })
		if len(r.dependents[k]) == 0 {
			delete(r.dependents, k)
		}
	}
}

// liveFibers returns the live fibers in creation order.
func (r *root) liveFibers() []*Fiber {
	r.mu.Lock()
	out := make([]*Fiber, 0, len(r.fibers))
	for f := range r.fibers {
		out = append(out, f)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b *Fiber) int { return cmp.Compare(a.id, b.id) })
	return out
}

// reconcile re-evaluates every fiber that injects one of keys, in creation order.
func (r *root) reconcile(keys []string) {
	if len(keys) == 0 {
		return
	}
	r.mu.Lock()
	var todo []*Fiber
	for _, k := range keys {
		for _, f := range r.dependents[k] {
			if !slices.Contains(todo, f) {
				todo = append(todo, f)
			}
		}
	}
	r.mu.Unlock()
	slices.SortFunc(todo, func(a, b *Fiber) int { return cmp.Compare(a.id, b.id) })
	for _, f := range todo {
		f.reconcile()
	}
}

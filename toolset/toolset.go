package toolset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl"
	"github.com/cordiskit/cordiskit/tooldecl/cordis"
)

// Options configures a Toolset. A nil *Options means defaults: the kit's core tier only.
type Options struct {
	// Catalog and Facade are the runtime's generated catalog and façade (the cordisapi
	// package gen-cordis-api writes). The kit's own core tier is merged in; nil means the
	// core tier alone.
	Catalog *catalog.Catalog
	Facade  *sandbox.Facade

	// Timeouts bounds every entry into mount code (see [sandbox.Timeouts]); nil or a zero
	// field means the sandbox default.
	Timeouts *sandbox.Timeouts

	// Limits caps what mounts may make the host do (sizes, nesting, per-mount budgets; see
	// [sandbox.Limits]); nil or a zero field means the sandbox default.
	Limits *sandbox.Limits

	// OnError, if set, also receives the background failures no tool call returns, each
	// once, with the id of the mount it belongs to ("dyn-3"). It is called when
	//   - mount code fails where nobody awaits it: an unhandled promise rejection, a
	//     failing emit-mode listener or timer callback, a callback removed after its
	//     strikes, a failing call into a JavaScript service implementation whose Go
	//     signature has no error result ([sandbox.Options].OnError, which it is passed to);
	//   - a mount's apply fails after cordis_mount returned: the first apply of a mount
	//     that was pending until an injected service appeared, or a reload after one
	//     returned (the mount stays failed, as cordis_inspect shows, until it is unmounted
	//     or a service it injects returns);
	//   - the mounts are unmounted because the toolset unloads (its tools registry went away,
	//     or [Toolset.Dispose] or its parent's disposal): with each mount's cleanup failure —
	//     a failing effect disposer, or disposers abandoned at the teardown bound
	//     ([sandbox.AbandonedError]). They are also returned, joined, by the Dispose that
	//     unloaded the toolset, or logged by the kit when the registry went away.
	// A cleanup failure of a cordis_unmount is that call's error, not passed here. So is
	// anything that fails while cordis_mount runs. The kit logs, and does not pass here,
	// the cleanup failures of a mount that unloads to pending because a service it injects
	// went away. OnError may be called with the sandbox's lock held, so it must not enter
	// JavaScript.
	OnError func(mount string, err error)
	// SharedServices lists the service keys a mount provides to every session, as the
	// runtime's own services are; a mount's other services are its session's alone
	// (package doc, "Sessions").
	SharedServices []string

	// Logger receives mount console output and background failures; nil means the kit's.
	Logger *slog.Logger
}

// A Toolset is the mount manager and its three tools, running as the plugin
// "cordis-toolset" with every mount a child of its "cordis-dynamic" group fiber.
type Toolset struct {
	cat     *catalog.Catalog
	loop    *sandbox.Sandbox
	fiber   *kit.Fiber
	logger  *slog.Logger
	onError func(mount string, err error)
	shares  []string // Options.SharedServices

	// ops serializes the mounts and unmounts of each session, which may run for as long as
	// Timeouts.VM + Timeouts.Mount: a session's slow mount holds up its own session's only,
	// as its JavaScript does (each session's realms run in an engine of their own). mu only
	// guards the fields below, so inspection never waits for a mount in progress.
	ops    sessionOps
	mu     sync.Mutex
	group  *kit.Fiber
	nextID int
	mounts []*mount // insertion order: the order mounts completed
}

type mount struct {
	id      string
	name    string
	session string // the session that mounted it; "" for a caller without one
	fiber   *kit.Fiber
	unit    *sandbox.Mount
}

// New starts the toolset under c: it registers cordis_inspect, cordis_mount and
// cordis_unmount in the tools registry as effects of its own fiber. Disposing the toolset
// (or c's fiber) unmounts every mount.
func New(c *kit.Context, opts *Options) (*Toolset, error) {
	if opts == nil {
		opts = &Options{}
	}
	sopts := &sandbox.Options{Timeouts: opts.Timeouts, Limits: opts.Limits, OnError: opts.OnError}
	// The sandbox's own check, so both packages accept and refuse the same options.
	if err := sopts.Validate(); err != nil {
		return nil, fmt.Errorf("toolset: invalid Options: %w", err)
	}
	cat, err := catalog.Merge(generated.Catalog, orEmpty(opts.Catalog))
	if err != nil {
		return nil, fmt.Errorf("toolset: merging the runtime's catalog with the core tier: %w", err)
	}
	facade, err := sandbox.Merge(generated.Facade, orEmptyFacade(opts.Facade))
	if err != nil {
		return nil, fmt.Errorf("toolset: merging the runtime's façade with the core tier: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = c.Logger()
	}
	sopts.Facade, sopts.Logger = facade, logger
	t := &Toolset{cat: cat, logger: logger, loop: sandbox.New(sopts), onError: opts.OnError, shares: slices.Clone(opts.SharedServices)}
	t.fiber = c.Plugin(&kit.Plugin{Name: "cordis-toolset", Inject: []string{"tools"}, Apply: t.apply})
	if err := t.fiber.Err(); err != nil {
		t.loop.Close(context.Background())
		return nil, err
	}
	return t, nil
}

func orEmpty(c *catalog.Catalog) *catalog.Catalog {
	if c == nil {
		return &catalog.Catalog{}
	}
	return c
}

func orEmptyFacade(f *sandbox.Facade) *sandbox.Facade {
	if f == nil {
		return &sandbox.Facade{}
	}
	return f
}

// apply runs each time the toolset activates: a fresh group fiber and the three tools.
// When it unloads (the tools registry went away) the group and every mount go with it.
func (t *Toolset) apply(c *kit.Context) error {
	tools, _ := kit.ToolsService.Get(c)
	group := c.Plugin(&kit.Plugin{Name: "cordis-dynamic", Apply: func(*kit.Context) error { return nil }})
	// Registered after the group, so it runs before the group is disposed (effects are
	// reversed newest first): it unmounts every mount itself, to tell whose cleanup failed.
	if err := c.Effect(t.unmountAll); err != nil {
		return err
	}
	t.mu.Lock()
	t.group = group
	t.mu.Unlock()
	inspect, errInspect := tooldecl.Bind(t.cat, cordis.Inspect, t.Inspect)
	mount, errMount := tooldecl.Bind(t.cat, cordis.Mount, t.Mount)
	unmount, errUnmount := tooldecl.Bind(t.cat, cordis.Unmount, t.Unmount)
	if err := errors.Join(errInspect, errMount, errUnmount); err != nil {
		// The three are in the core tier t.cat always merges: a stale generated/ package.
		return fmt.Errorf("toolset: %w", err)
	}
	for _, tool := range []kit.Tool{inspect, mount, unmount} {
		if _, err := tools.Register(c, tool); err != nil {
			return err
		}
	}
	return nil
}

// Fiber returns the toolset's fiber ("cordis-toolset").
func (t *Toolset) Fiber() *kit.Fiber { return t.fiber }

// Catalog returns the merged catalog the toolset reports from.
func (t *Toolset) Catalog() *catalog.Catalog { return t.cat }

// Dispose unmounts every mount, unregisters the tools and closes the sandbox.
func (t *Toolset) Dispose(ctx context.Context) error {
	return errors.Join(t.fiber.Dispose(ctx), t.loop.Close(ctx))
}

// Mount implements cordis_mount.
func (t *Toolset) Mount(ctx context.Context, in cordis.MountInput) (cordis.MountOutput, error) {
	if strings.TrimSpace(in.Code) == "" {
		return cordis.MountOutput{}, errors.New(`code is empty: pass the BODY of an async function that returns a plugin, e.g. return (ctx) => { ctx.on('tools/change', (tool) => console.log(tool)) }`)
	}
	t.mu.Lock()
	t.nextID++
	id := fmt.Sprintf("dyn-%d", t.nextID)
	t.mu.Unlock()
	// Compiling runs no JavaScript and cannot be interrupted (the sandbox bounds its work
	// instead), so it happens before the session's op: a large mount must not hold up other mounts and
	// unmounts while it compiles.
	prog, err := t.loop.Compile(id, in.Code)
	if err != nil {
		return cordis.MountOutput{}, err
	}
	session, _ := kit.SessionFrom(ctx)
	defer t.ops.lock(session)()
	t.mu.Lock()
	group := t.group
	t.mu.Unlock()
	if group == nil {
		return cordis.MountOutput{}, errors.New("the cordis toolset is not active (its tools registry is gone); nothing can be mounted")
	}
	// The mount's realm runs in its session's engine: its JavaScript waits for no other
	// session's (sandbox.RunOptions.Session).
	unit, err := t.loop.RunWith(ctx, prog, &sandbox.RunOptions{Session: session, Shares: t.shares})
	if err != nil {
		return cordis.MountOutput{}, err
	}
	f, err := t.start(ctx, id, unit, group.Context())
	if err != nil {
		return cordis.MountOutput{}, teachMountFailure(id, err)
	}
	m := &mount{id: id, name: unit.Name(), session: session, fiber: f, unit: unit}
	t.mu.Lock()
	t.mounts = append(t.mounts, m)
	t.mu.Unlock()
	return m.output(), nil
}

// sessionOps are one mutex per session, each kept while someone holds or waits for it.
type sessionOps struct {
	mu sync.Mutex
	by map[string]*sessionOp
}

type sessionOp struct {
	sync.Mutex
	users int // holders and waiters; guarded by sessionOps.mu
}

// lock takes session's mutex and returns what releases it.
func (o *sessionOps) lock(session string) (unlock func()) {
	o.mu.Lock()
	op := o.by[session]
	if op == nil {
		op = &sessionOp{}
		if o.by == nil {
			o.by = map[string]*sessionOp{}
		}
		o.by[session] = op
	}
	op.users++
	o.mu.Unlock()
	op.Lock()
	return func() {
		op.Unlock()
		o.mu.Lock()
		if op.users--; op.users == 0 {
			delete(o.by, session)
		}
		o.mu.Unlock()
	}
}

// start runs unit as a child plugin of parent, in the session it was run for, and waits
// for it to settle, as [sandbox.Mount.Start] does, with its Apply watched: an apply
// failure that the caller of cordis_mount is not told about goes to OnError (see
// [applyWatch]).
func (t *Toolset) start(ctx context.Context, id string, unit *sandbox.Mount, parent *kit.Context) (*kit.Fiber, error) {
	w := &applyWatch{mount: id, report: t.report}
	p := unit.Plugin() // its Session and Shares are the RunOptions'
	p.Apply = w.wrap(p.Apply)
	f := parent.Plugin(p)
	if err := f.Await(ctx); err != nil || f.State() == kit.StateFailed {
		if err == nil {
			err = f.Err()
		}
		_ = f.Dispose(ctx)
		_ = unit.Close(ctx)
		return nil, err
	}
	w.returned()
	return f, nil
}

// An applyWatch sees every apply of one mount. A failure before cordis_mount returns the
// mount is held: if the mount is left failed, the call returns it instead; if not (the
// mount went back to pending first), [applyWatch.returned] reports it. A failure after
// that is reported at once.
type applyWatch struct {
	mount  string
	report func(mount string, err error)

	mu   sync.Mutex
	done bool  // cordis_mount returned the mount
	held error // an apply failure before that
}

func (w *applyWatch) wrap(apply func(*kit.Context) error) func(*kit.Context) error {
	return func(c *kit.Context) error {
		err := apply(c)
		if err == nil {
			return nil
		}
		w.mu.Lock()
		late := w.done
		if !late {
			w.held = err
		}
		w.mu.Unlock()
		if late {
			w.report(w.mount, err)
		}
		return err
	}
}

// returned records that cordis_mount returned the mount, and reports a failure it held.
func (w *applyWatch) returned() {
	w.mu.Lock()
	w.done = true
	held := w.held
	w.held = nil
	w.mu.Unlock()
	if held != nil {
		w.report(w.mount, held)
	}
}

// report hands a background failure of mount to Options.OnError, if set.
func (t *Toolset) report(mount string, err error) {
	if t.onError != nil {
		t.onError(mount, err)
	}
}

// unmountAll disposes every mount, newest first, and releases its realm, when the toolset
// unloads. Each mount's cleanup failure goes to OnError with its id; all are returned.
func (t *Toolset) unmountAll() error {
	t.mu.Lock()
	mounts := t.mounts
	t.mounts, t.group = nil, nil
	t.mu.Unlock()
	var errs []error
	for _, m := range slices.Backward(mounts) {
		ctx := context.Background()
		if err := errors.Join(m.fiber.Dispose(ctx), m.unit.Close(ctx)); err != nil {
			t.report(m.id, err)
			errs = append(errs, fmt.Errorf("temporary Plugin %s: %w", m.id, err))
		}
	}
	return errors.Join(errs...)
}

func (m *mount) output() cordis.MountOutput {
	info := m.fiber.Info()
	return cordis.MountOutput{
		ID:         m.id,
		PluginName: m.name,
		State:      cordis.State(info.State.String()),
		Provides:   nonNil(info.Provides),
		WaitingFor: nonNil(info.WaitingFor),
	}
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// teachMountFailure adds the next step to errors a model can fix by itself.
func teachMountFailure(id string, err error) error {
	if errors.Is(err, kit.ErrDuplicate) {
		return fmt.Errorf("temporary Plugin %s failed to start and was removed: %w. If an earlier mount registered that name, unmount it first (find it with cordis_inspect what:\"temporary\") or pick another name", id, err)
	}
	return fmt.Errorf("temporary Plugin %s failed to start and was removed: %w", id, err)
}

// Unmount implements cordis_unmount.
func (t *Toolset) Unmount(ctx context.Context, in cordis.UnmountInput) (cordis.UnmountOutput, error) {
	session, _ := kit.SessionFrom(ctx)
	defer t.ops.lock(session)()
	t.mu.Lock()
	i := t.find(viewOf(ctx), in.ID)
	var m *mount
	if i >= 0 {
		m = t.mounts[i]
		t.mounts = slices.Delete(t.mounts, i, i+1) // clears the tail: no stale pointer keeps the realm alive
	}
	t.mu.Unlock()
	if m == nil {
		return cordis.UnmountOutput{}, fmt.Errorf("no temporary Plugin with id %q (list them with cordis_inspect what:\"temporary\")", in.ID)
	}
	// The teardown is bounded by the sandbox (Limits.Teardown for the mount's JavaScript
	// disposers); the kit undoes every Go-side registration whatever they do.
	// Closing waits for the mount's async Go calls, whose contexts it cancels; a Go method
	// that ignores its context must not hold the model's unmount (and the toolset's lock)
	// for longer than one call bound. The loop still owns and waits for such a call.
	closeCtx, cancel := context.WithTimeout(ctx, t.loop.Timeouts().Call)
	defer cancel()
	if err := errors.Join(m.fiber.Dispose(ctx), m.unit.Close(closeCtx)); err != nil {
		return cordis.UnmountOutput{}, fmt.Errorf("temporary Plugin %s was removed, but its cleanup reported: %w", m.id, capErrors(err, maxCleanupErrors))
	}
	return cordis.UnmountOutput{ID: m.id, PluginName: m.name}, nil
}

// maxCleanupErrors is how many cleanup errors an unmount reports one by one: a mount with
// thousands of failing disposers must not turn its unmount result into megabytes of text.
const maxCleanupErrors = 8

// capErrors keeps the first n of the errors joined in err and counts the rest. The result
// still unwraps to the errors it keeps.
func capErrors(err error, n int) error {
	var leaves []error
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		leaves = append(leaves, e)
	}
	walk(err)
	if len(leaves) <= n {
		return err
	}
	kept := append(leaves[:n:n], fmt.Errorf("… and %d more cleanup errors", len(leaves)-n))
	return errors.Join(kept...)
}

// find returns the index of the mount with id that v sees, or -1. mu must be held.
func (t *Toolset) find(v view, id string) int {
	for i, m := range t.mounts {
		if m.id == id && v.sees(m.session) {
			return i
		}
	}
	return -1
}

// Inspect implements cordis_inspect.
func (t *Toolset) Inspect(ctx context.Context, in cordis.InspectInput) (string, error) {
	if in.Name != "" && in.What != cordis.SectionAPI && in.What != cordis.SectionEvents {
		return "", errors.New(`name is valid only with what:"api" or what:"events"`)
	}
	what := sectionOrder
	if in.What != "" {
		if !isSection(in.What) {
			return "", fmt.Errorf("unknown section %q; use one of services, plugins, tools, temporary, api, events, or omit what for all", in.What)
		}
		what = []cordis.Section{in.What}
	}
	c := t.fiber.Context()
	v := viewOf(ctx)
	var parts []section
	for _, s := range what {
		lines, err := t.section(c, v, s, in.Name)
		if err != nil {
			return "", err
		}
		parts = append(parts, section{s, lines})
	}
	return joinSections(parts), nil
}

func isSection(s cordis.Section) bool {
	for _, x := range sectionOrder {
		if x == s {
			return true
		}
	}
	return false
}

func (t *Toolset) section(c *kit.Context, v view, s cordis.Section, name string) ([]string, error) {
	switch s {
	case cordis.SectionServices:
		return servicesSection(c, v), nil
	case cordis.SectionPlugins:
		return pluginsSection(c, v), nil
	case cordis.SectionTools:
		tools, ok := kit.ToolsService.Get(c)
		if !ok {
			return []string{"(the tools registry is not running)"}, nil
		}
		return toolsSection(v.tools(tools)), nil
	case cordis.SectionTemporary:
		return t.temporarySection(v), nil
	case cordis.SectionAPI:
		return apiSection(t.cat, c, v, name)
	default:
		return eventsSection(t.cat, name)
	}
}

func (t *Toolset) temporarySection(v view) []string {
	t.mu.Lock()
	var mounts []*mount
	for _, m := range t.mounts {
		if v.sees(m.session) {
			mounts = append(mounts, m)
		}
	}
	t.mu.Unlock()
	if len(mounts) == 0 {
		return []string{"No temporary Plugins are running. Temporary Plugins created with cordis_mount disappear when the process restarts."}
	}
	var lines []string
	for _, m := range mounts {
		info := m.fiber.Info()
		state := info.State.String()
		if info.State == kit.StateActive {
			state = "running"
		}
		if info.Err != nil {
			line, _, _ := strings.Cut(info.Err.Error(), "\n")
			state += ": " + line
		}
		lines = append(lines, fmt.Sprintf("- Temporary Plugin %s: %s [%s] — provides: %s; waiting for: %s; lifetime: until unmounted or the process restarts",
			m.id, m.name, state, listOrNone(info.Provides), listOrNone(info.WaitingFor)))
	}
	return lines
}

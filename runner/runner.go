package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/inspect"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// Default bounds of Options.
const (
	DefaultApprovalTimeout   = 10 * time.Minute
	DefaultClientTimeout     = 2 * time.Minute
	DefaultStopTimeout       = 30 * time.Second
	DefaultMaxQueuedMessages = 100
	DefaultMaxNameBytes      = 200
	DefaultMaxPurposeBytes   = 2000

	// The caps (see the package doc's Caps).
	DefaultMaxPluginsPerSession         = 64
	DefaultMaxPackagesPerSession        = 256
	DefaultMaxPendingRequestsPerSession = 16
	DefaultMaxHandlersPerRun            = 256
	DefaultMaxInventoryBytes            = 1 << 20
)

// Options configures a Runner. A nil *Options means defaults: an in-memory Store and a
// sandbox host with no façade.
type Options struct {
	// Store keeps the definition registry; nil means NewMemoryStore().
	Store Store
	// Host starts host halves; nil means a SandboxHost built from Facade, Timeouts, Limits
	// and Logger, owned (and closed) by the Runner.
	Host HostStarter
	// SharedServices lists the service keys a host half provides to every session, as the
	// runtime's own services are. Any other service a half provides is seen by its own
	// session alone (package doc, "Runs"). Declare a key shared only when every session may
	// call into the code of whichever session provides it.
	SharedServices []string
	// Facade, Timeouts and Limits configure the sandbox host when Host is nil. The core
	// tier's bindings (the tools service's get, has, owner, …) are merged in, so a host
	// half sees what a mount sees; nil means the core tier alone.
	Facade   *sandbox.Facade
	Timeouts *sandbox.Timeouts
	Limits   *sandbox.Limits
	// Logger receives console output of host halves and background failures; nil means
	// the kit runtime's.
	Logger *slog.Logger

	// ApproveHostHalves gates host halves like client halves: a model's run of a Package
	// that is not granted waits for a person's approval in the panel, host-only or not.
	ApproveHostHalves bool
	// ApprovalTimeout bounds how long a run request waits for a person (or, when it needs
	// no approval, for a page) to start it; the request then expires and the model is
	// told. Default 10 minutes.
	ApprovalTimeout time.Duration
	// ClientTimeout bounds how long the page that started a run may take to report its
	// client half; past it the run is retracted and the request expires. Default 2 minutes.
	ClientTimeout time.Duration
	// Clock schedules the ApprovalTimeout and ClientTimeout deadlines; nil means real
	// time. A test passes a *ManualClock and moves it past a deadline instead of waiting.
	Clock Clock
	// StopTimeout bounds a stop the runner makes on its own (an expired request, a
	// replaced run): the wait for the half's disposers. Default 30 seconds.
	StopTimeout time.Duration
	// MaxQueuedMessages bounds the model messages kept for one session until they are
	// delivered (Connect, TakeMessages); older ones are dropped (and counted). Default 100.
	MaxQueuedMessages int
	// MaxNameBytes and MaxPurposeBytes bound a Package's name and purpose. Defaults 200
	// and 2000.
	MaxNameBytes, MaxPurposeBytes int
	// RestartAtBoot makes New start again the Plugins a durable Store says were running
	// when the previous process ended (Plugin.Running), as their owning sessions: a
	// host-only Package runs at once, a Package with a client half becomes a run request
	// that needs approval again unless a grant covers it. Without it they stay stopped.
	// Either way each owning session is told when it connects. Default off.
	RestartAtBoot bool

	// Catalog is what the Service and Event inspect providers report: the runtime's
	// catalog (cordisapi.Catalog) or a Toolset's merged one (Toolset.Catalog()); the kit's
	// core tier is merged in either way. nil means the core tier alone.
	Catalog *catalog.Catalog
	// InspectQueryTimeout bounds how long a client inspect query waits for a page to
	// answer; the query then fails and says it expired. Default 30 seconds.
	InspectQueryTimeout time.Duration
	// MaxInspectMethods bounds the methods one page may publish as client inspect
	// providers, over all its providers. Default 256.
	MaxInspectMethods int

	// Caps: what one session or one run may hold (the package doc's Caps). A verb that
	// would go past one is refused with ReasonLimit and a message that names the field.
	//
	// MaxPluginsPerSession bounds the Plugins one session holds. Default 64.
	MaxPluginsPerSession int
	// MaxPackagesPerSession bounds the Packages one session holds, over all its Plugins.
	// Default 256.
	MaxPackagesPerSession int
	// MaxPendingRequestsPerSession bounds the run requests of one session that wait for a
	// page at once. Default 16.
	MaxPendingRequestsPerSession int
	// MaxHandlersPerRun bounds the harness.handle handlers one run of a host half holds at
	// once, in the sandbox host the Runner builds (Host nil; for a SandboxHost of your own,
	// see SandboxHost.SetMaxHandlersPerRun). Default 256.
	MaxHandlersPerRun int
	// MaxInventoryBytes bounds the JSON of the rows one InventoryPage answer carries.
	// Default 1 MiB.
	MaxInventoryBytes int
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.ApprovalTimeout, DefaultApprovalTimeout)
	def(&c.ClientTimeout, DefaultClientTimeout)
	def(&c.StopTimeout, DefaultStopTimeout)
	def(&c.InspectQueryTimeout, inspect.DefaultQueryTimeout)
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	if c.MaxInspectMethods <= 0 {
		c.MaxInspectMethods = inspect.DefaultMaxMethods
	}
	for _, f := range []struct {
		p *int
		v int
	}{{&c.MaxQueuedMessages, DefaultMaxQueuedMessages}, {&c.MaxNameBytes, DefaultMaxNameBytes}, {&c.MaxPurposeBytes, DefaultMaxPurposeBytes},
		{&c.MaxPluginsPerSession, DefaultMaxPluginsPerSession}, {&c.MaxPackagesPerSession, DefaultMaxPackagesPerSession},
		{&c.MaxPendingRequestsPerSession, DefaultMaxPendingRequestsPerSession}, {&c.MaxHandlersPerRun, DefaultMaxHandlersPerRun},
		{&c.MaxInventoryBytes, DefaultMaxInventoryBytes}} {
		if *f.p <= 0 {
			*f.p = f.v
		}
	}
	return c
}

// A Runner is the dynamic-plugin runner: the definition registry behind a Store, the live
// runs of host halves under its "cordis-runs" group fiber, pending run requests with their
// deadlines, and the verbs a model (through tools) and a page (through the panel) call.
type Runner struct {
	opts    Options
	store   Store
	host    HostStarter
	ownHost *SandboxHost
	fiber   *kit.Fiber // "cordis-runner"
	group   *kit.Fiber // "cordis-runs": every host half is a child
	logger  *slog.Logger

	mu sync.Mutex
	// stopped is broadcast when a detached run's stop finishes (see live.stopping).
	stopped sync.Cond
	live    map[string]*live // by Plugin id; entries only while something is live
	closed  bool
	timers  sync.WaitGroup // deadline callbacks in flight

	msgMu     sync.Mutex
	connected map[string]int
	queued    map[string]*mailbox
	restarts  map[string]dynamic.BootRestart // what boot did per Plugin (RestartAtBoot); msgMu

	inspect *inspect.Registry // inspect providers and client queries (inspect.go)
	leases  *leases           // with a SessionOwner store (lease.go)
	// unwatchChanges ends the relay of a ChangeNotifier store's changes (lease.go).
	unwatchChanges func()
}

// live is what the Runner holds for one Plugin besides its stored record.
type live struct {
	run   *liveRun    // the physical run
	start *activation // the activation in flight
	req   *request    // the pending run request, or a direct run's wait for its page
	gone  bool        // being undefined: nothing may start
	// stopping counts runs detached from the Plugin (detach) whose stop has not finished:
	// a new half must not start while an old one still holds its tools and services.
	stopping int
}

func (l *live) idle() bool {
	return l.run == nil && l.start == nil && l.req == nil && !l.gone && l.stopping == 0
}

// starting returns the start in flight, or nil (also for a nil l). r.mu held.
func (l *live) starting() *activation {
	if l == nil {
		return nil
	}
	return l.start
}

// request returns the pending request, or nil (also for a nil l). r.mu held.
func (l *live) request() *request {
	if l == nil {
		return nil
	}
	return l.req
}

// detach takes the live run off l for stopRun, which must follow. r.mu held.
func (l *live) detach() *liveRun {
	run := l.run
	l.run = nil
	if run != nil {
		l.stopping++
	}
	return run
}

// A liveRun is the one activation that is live now.
type liveRun struct {
	id, pkg    string
	session    string  // the Plugin's: a lost lease stops the session's runs without reading the Store
	host       HostRun // nil for a client-only Package
	capability string  // held by pages that loaded the run; binds Invoke
	token      string  // the answer token of the page that started it ("" when none did)
	forRequest string  // the request it was started for, until it commits

	reported map[string]bool // runtime failures already steered (per run); nil until the first
}

// New starts a Runner under c as the plugin "cordis-runner". Dispose it (or c's fiber) to
// stop every run.
func New(c *kit.Context, opts *Options) (*Runner, error) {
	o := opts.withDefaults()
	r := &Runner{opts: o, store: o.Store, host: o.Host, logger: o.Logger, live: map[string]*live{},
		connected: map[string]int{}, queued: map[string]*mailbox{}}
	r.stopped.L = &r.mu
	if err := r.initInspect(o); err != nil {
		return nil, err
	}
	if r.logger == nil {
		r.logger = c.Logger()
	}
	if r.store == nil {
		r.store = NewMemoryStore()
	}
	if r.host == nil {
		// The core tier's bindings (ctx.tools.get, …) beside the runtime's, as a mount has them.
		facade := o.Facade
		if facade == nil {
			facade = &sandbox.Facade{}
		}
		facade, err := sandbox.Merge(generated.Facade, facade)
		if err != nil {
			return nil, fmt.Errorf("runner: merging the runtime's façade with the core tier: %w", err)
		}
		sopts := &sandbox.Options{Facade: facade, Timeouts: o.Timeouts, Limits: o.Limits, Logger: r.logger}
		if err := sopts.Validate(); err != nil { // sandbox.New would panic
			return nil, fmt.Errorf("runner: invalid Options: %w", err)
		}
		r.ownHost = NewSandboxHost(sopts)
		r.ownHost.SetMaxHandlersPerRun(o.MaxHandlersPerRun)
		r.host = r.ownHost
	}
	r.fiber = c.Plugin(&kit.Plugin{Name: "cordis-runner", Apply: func(c *kit.Context) error {
		r.group = c.Plugin(&kit.Plugin{Name: "cordis-runs", Apply: func(*kit.Context) error { return nil }})
		if err := r.group.Err(); err != nil {
			return err
		}
		return r.startTools(c) // after the group: the tools go first when the runner unloads
	}})
	if err := r.fiber.Err(); err != nil {
		r.closeHost(context.Background())
		return nil, fmt.Errorf("runner: starting: %w", err)
	}
	if err := r.boot(context.Background()); err != nil {
		return nil, errors.Join(err, r.Dispose(context.Background()))
	}
	r.startLeases()
	return r, nil
}

// Fiber returns the runner's fiber ("cordis-runner"); its child "cordis-runs" holds every
// host half.
func (r *Runner) Fiber() *kit.Fiber { return r.fiber }

// Store returns the runner's Store.
func (r *Runner) Store() Store { return r.store }

// Dispose stops every run (without retract events: the runner is going away), cancels
// pending requests and activations in flight, waits for all of them and the deadline
// timers, disposes the runner's fiber and closes the sandbox host it owns.
func (r *Runner) Dispose(ctx context.Context) error {
	r.stopLeases()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	var starts []*activation
	var runs []*liveRun
	for id, l := range r.live {
		if l.req != nil {
			l.req.stopTimer(r)
		}
		if l.start != nil {
			l.start.stop()
			starts = append(starts, l.start)
		}
		if l.run != nil {
			runs = append(runs, l.run)
		}
		delete(r.live, id)
	}
	r.mu.Unlock()
	r.inspect.Close()
	var errs []error
	for _, a := range starts {
		if err := a.wait(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	for _, run := range runs {
		if run.host != nil {
			errs = append(errs, run.host.Stop(ctx))
		}
	}
	r.timers.Wait()
	errs = append(errs, r.fiber.Dispose(ctx), r.closeHost(ctx))
	return errors.Join(errs...)
}

func (r *Runner) closeHost(ctx context.Context) error {
	if r.ownHost == nil {
		return nil
	}
	return r.ownHost.Close(ctx)
}

// session returns the calling session on ctx.
func (r *Runner) session(ctx context.Context) (string, error) {
	if id, ok := kit.SessionFrom(ctx); ok {
		return id, nil
	}
	return "", refuse(ReasonNoSession, "the Cordis dynamic-plugin verbs need the calling session: the runtime must call them with a context from kit.WithSession(ctx, sessionID) (each agent or MCP client session is its own session)")
}

// owned returns Plugin id if session owns it; a Plugin of another session reads as absent.
func (r *Runner) owned(ctx context.Context, session, id string) (Plugin, error) {
	p, err := r.store.Plugin(ctx, id)
	if errors.Is(err, ErrNotFound) || err == nil && p.Session != session {
		return Plugin{}, missing(id)
	}
	return p, err
}

// liveOf returns the live entry of Plugin id, creating it. r.mu held.
func (r *Runner) liveOf(id string) *live {
	l := r.live[id]
	if l == nil {
		l = &live{}
		r.live[id] = l
	}
	return l
}

// tidy drops the live entry of Plugin id when nothing is live. r.mu held.
func (r *Runner) tidy(id string) {
	if l := r.live[id]; l != nil && l.idle() {
		delete(r.live, id)
	}
}

// lock takes r.mu unless the runner is closed.
func (r *Runner) lock() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return refuse(ReasonClosed, "the dynamic-plugin runner has been shut down; nothing can be defined or run")
	}
	return nil
}

// secret returns an unguessable token.
func secret() string { return page.NewSecret() }

// An outbox collects events and messages to send once r.mu is released: kit listeners run
// on the emitting goroutine and may call back into the Runner.
type outbox []func()

func (o *outbox) add(f func()) { *o = append(*o, f) }

func (o *outbox) flush() {
	for _, f := range *o {
		f()
	}
	*o = nil
}

func (r *Runner) ctx() *kit.Context { return r.fiber.Context() }

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/sandbox/internal/engine"
)

// Options configures a Sandbox. A nil *Options means defaults.
type Options struct {
	// Facade lists the catalogued events JavaScript may listen to (ctx.on) and the binders
	// for Go services it may inject. Usually generated.Facade, possibly merged with a
	// runtime's own (see Merge). Nil means no events and no Go services.
	Facade *Facade
	// Timeouts bounds every entry into JavaScript. Nil means defaults.
	Timeouts *Timeouts
	// Limits caps what crosses the boundary. Nil means defaults.
	Limits *Limits
	// Logger receives console output (tagged mount=dyn-N), unhandled promise rejections
	// and failed listeners. Nil means slog.Default().
	Logger *slog.Logger
	// OnError, if set, also receives errors nobody else sees: unhandled promise rejections
	// and failed emit-mode listeners, with the mount id. It may be called with an engine's
	// lock held, so it must not enter JavaScript (hand the error to another goroutine).
	OnError func(mount string, err error)
}

// Timeouts bounds the time JavaScript may run. A zero field means its default.
type Timeouts struct {
	// VM bounds the synchronous evaluation of mount code (and promise jobs that run before
	// it returns). Default 5s.
	VM time.Duration
	// Mount bounds the rest of a mount: waiting for the body's promise, and apply (with the
	// promise it returns). Default 10s.
	Mount time.Duration
	// Call bounds every later entry into JavaScript: a listener, a tool's execute, a timer
	// callback, an effect disposer, a cross-mount call, the settling of an async Go call.
	// Default 10s.
	Call time.Duration
}

// Default time bounds.
const (
	DefaultVMTimeout    = 5 * time.Second
	DefaultMountTimeout = 10 * time.Second
	DefaultCallTimeout  = 10 * time.Second
)

// Limits caps what the sandbox controls. goja has no heap cap (see docs/rough_edges.md);
// these bound the values that cross between Go and JavaScript. A zero field means its
// default.
type Limits struct {
	// MaxCallStackSize is goja's call depth limit; deeper recursion ends the entry with a
	// *goja.StackOverflowError. Default 2000.
	MaxCallStackSize int
	// MaxDepth bounds the nesting of converted objects and arrays. Default 64.
	MaxDepth int
	// MaxBytes bounds one string, JSON document or byte buffer crossing the boundary, the
	// string bytes of one converted value taken together (a Go method's argument, a tool's
	// result), and the source of mount code. Default 8 MiB.
	MaxBytes int
	// MaxNodes bounds the elements (array items, map entries, JSON values) one conversion
	// produces: a Go method's argument, a JSON document, a value crossing the membrane.
	// Shared references count each time they are copied, so a DAG counts as the tree it
	// copies to. Default 1<<20.
	MaxNodes int
	// MaxNesting bounds how deeply mount code nests, checked before it is parsed: open
	// brackets and template substitutions, plus chains of operators, unary prefixes, calls
	// and else-ifs within one expression or statement (goja parses and compiles by
	// recursion, and a deep enough nest overflows the Go stack fatally). Default 500.
	MaxNesting int
	// MaxNestingWork bounds the sum, over mount code's tokens, of the nesting each sits at:
	// goja's compile time grows with it (with the square of the depth for some shapes), and
	// compiling runs before any time bound. Default 64<<20 (about a second of compiling).
	MaxNestingWork int

	// Per-mount budgets: what one mount may hold at once or produce in total. Going past
	// one throws a TypeError in the mount's JavaScript that names the field.

	// MaxTimers bounds a mount's timers alive at once (ctx.setTimeout, ctx.setInterval,
	// pending ctx.sleep). Default 1000.
	MaxTimers int
	// MaxListeners bounds a mount's event listeners alive at once (ctx.on, ctx.once).
	// Default 1000.
	MaxListeners int
	// MaxTools bounds the tools a mount has registered at once. Default 256.
	MaxTools int
	// MaxServices bounds the services one activation of a mount provides. Default 256.
	MaxServices int
	// MaxLogBytes bounds a mount's console output over its lifetime; past it one
	// "console output truncated" line is logged and later output is dropped. Default 16 MiB.
	MaxLogBytes int
	// MaxLogLine bounds one console line; a longer one is cut and marked. Default 64 KiB.
	MaxLogLine int
	// MaxRejectionReports bounds the unhandled promise rejections reported (logged and
	// passed to OnError) for one mount; later ones are counted, and summarized in a line
	// each time their count doubles and when the mount closes. Default 100.
	MaxRejectionReports int
	// Teardown bounds the JavaScript work of one teardown: all of a mount's effect
	// disposers together. Once it is spent the remaining disposers are abandoned (not run)
	// and reported; the mount's listeners, tools, services and timers are removed anyway.
	// Default 2×Timeouts.Call.
	Teardown time.Duration
	// MaxTimerShare bounds, in percent, the wall time a mount's timer callbacks may hold the
	// JavaScript lock: each run's time adds to a debt paid off at this percent of the wall
	// time, and while the debt is Timeouts.Call or more the mount's timers wait, so
	// intervals that each stay under their own bound cannot starve other mounts (see the
	// package doc, "Strikes and shares"). Default 50.
	MaxTimerShare int
	// MaxEntryAlloc bounds, in bytes, the memory one entry into JavaScript (an evaluation,
	// an apply, a listener, a tool's execute, a timer callback, …) may allocate that no
	// garbage collection has freed; past it the entry is stopped, like one past its time
	// bound, with an *AllocError. It is measured on the whole process, every few
	// milliseconds: see the package doc, "Memory". Default 256 MiB.
	MaxEntryAlloc int
}

// Default limits.
const (
	DefaultMaxCallStackSize = 2000
	DefaultMaxDepth         = 64
	DefaultMaxBytes         = 8 << 20
	DefaultMaxNodes         = 1 << 20
	DefaultMaxNesting       = 500
	DefaultMaxNestingWork   = 64 << 20
	DefaultMaxTimers        = 1000
	DefaultMaxListeners     = 1000
	DefaultMaxTools         = 256
	DefaultMaxServices      = 256
	DefaultMaxLogBytes      = 16 << 20
	DefaultMaxLogLine       = 64 << 10
)

// DefaultMaxRejectionReports is the default of Limits.MaxRejectionReports.
const DefaultMaxRejectionReports = 100

// DefaultMaxTimerShare is the default of Limits.MaxTimerShare, in percent.
const DefaultMaxTimerShare = 50

// DefaultMaxEntryAlloc is the default of Limits.MaxEntryAlloc, in bytes.
const DefaultMaxEntryAlloc = 256 << 20

// A Sandbox runs the JavaScript of one toolset, in one engine per session: the realms of
// a session (kit.Plugin.Session; RunOptions.Session) share its engine's lock, so at most one
// goroutine runs a session's JavaScript at a time, while sessions run in parallel and wait
// for no other session's JavaScript; the runtime's own realms (no session) are one more
// engine. Any goroutine may enter (there is no owner goroutine to hand work to). A native
// function that calls into Go releases its engine's lock around the call
// ([Realm.Unlocked]), so Go code that emits to JavaScript — even to the calling realm —
// re-enters inline. Goroutines the Sandbox starts (watchdogs, async Go calls) are waited
// for by Close.
type Sandbox struct {
	facade   *Facade
	timeouts Timeouts
	limits   Limits
	logger   *slog.Logger
	onError  func(mount string, err error)

	// wg counts the goroutines of every engine, the retired ones' too: Close waits for it.
	wg sync.WaitGroup
	mu sync.Mutex
	// engines are the engines with an open realm, by session; guarded by mu. An engine is
	// made for a session's first realm and retired (removed, its lock closed) when its
	// last one closes.
	engines map[string]*sessionEngine
	closed  bool
}

// A sessionEngine is one engine of a Sandbox: the lock, the entries, the watchdog and the
// async calls' goroutines of one session's realms ("" for the runtime's own). It embeds
// the Sandbox, so a realm reads the configuration through its engine (r.engine.timeouts)
// and takes its session's lock (r.engine.lock). See the engine's doc, "Engines per session".
type sessionEngine struct {
	*Sandbox
	session string
	lock    engine.Lock
	realms  int // open realms; guarded by Sandbox.mu
}

// acquire returns the engine of session, made if it has none, with one more open realm
// counted. Lock not held (no engine's).
func (sb *Sandbox) acquire(session string) (*sessionEngine, error) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.closed {
		return nil, ErrClosed
	}
	se := sb.engines[session]
	if se == nil {
		se = &sessionEngine{Sandbox: sb, session: session}
		t := &sb.timeouts
		se.lock.InitOwned(min(t.VM, t.Mount, t.Call), ErrClosed, &sb.wg)
		if sb.engines == nil {
			sb.engines = map[string]*sessionEngine{}
		}
		sb.engines[session] = se
	}
	se.realms++
	return se, nil
}

// release counts one realm of se closed; a session's last one retires the engine: it
// leaves the map (the session's next realm gets a fresh engine) and its lock closes, its
// watchdog stopping. The runtime's own engine stays until Close. Lock not held (se's:
// retiring takes it).
func (se *sessionEngine) release() {
	sb := se.Sandbox
	sb.mu.Lock()
	se.realms--
	// The runtime's own engine stays: its realms come and go with the runtime's own calls
	// (a mount and unmount in a loop), and an engine made afresh each time would start a
	// watchdog each time.
	last := se.realms == 0 && se.session != ""
	if last && sb.engines[se.session] == se {
		delete(sb.engines, se.session)
	}
	sb.mu.Unlock()
	if last {
		se.lock.Retire()
	}
}

// Engines returns the number of engines the sandbox holds: one per session with an open
// realm, and the runtime's own once it has had a realm.
func (sb *Sandbox) Engines() int {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return len(sb.engines)
}

// New returns a Sandbox configured by opts. It panics if opts is invalid (see
// [Options.Validate]): a negative bound is a programmer error, and silently replacing it
// with a default would hide it. A host that takes options from its users (the toolset, the
// runner) calls Validate first and returns its error.
func New(opts *Options) *Sandbox {
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	l := &Sandbox{facade: &Facade{}, logger: slog.Default()}
	if opts != nil {
		if opts.Facade != nil {
			l.facade = opts.Facade
		}
		if opts.Timeouts != nil {
			l.timeouts = *opts.Timeouts
		}
		if opts.Limits != nil {
			l.limits = *opts.Limits
		}
		if opts.Logger != nil {
			l.logger = opts.Logger
		}
		l.onError = opts.OnError
	}
	t := &l.timeouts
	t.VM = orDefault(t.VM, DefaultVMTimeout)
	t.Mount = orDefault(t.Mount, DefaultMountTimeout)
	t.Call = orDefault(t.Call, DefaultCallTimeout)
	m := &l.limits
	m.MaxCallStackSize = orDefault(m.MaxCallStackSize, DefaultMaxCallStackSize)
	m.MaxDepth = orDefault(m.MaxDepth, DefaultMaxDepth)
	m.MaxBytes = orDefault(m.MaxBytes, DefaultMaxBytes)
	m.MaxNodes = orDefault(m.MaxNodes, DefaultMaxNodes)
	m.MaxNesting = orDefault(m.MaxNesting, DefaultMaxNesting)
	m.MaxNestingWork = orDefault(m.MaxNestingWork, DefaultMaxNestingWork)
	m.MaxTimers = orDefault(m.MaxTimers, DefaultMaxTimers)
	m.MaxListeners = orDefault(m.MaxListeners, DefaultMaxListeners)
	m.MaxTools = orDefault(m.MaxTools, DefaultMaxTools)
	m.MaxServices = orDefault(m.MaxServices, DefaultMaxServices)
	m.MaxLogBytes = orDefault(m.MaxLogBytes, DefaultMaxLogBytes)
	m.MaxLogLine = orDefault(m.MaxLogLine, DefaultMaxLogLine)
	m.MaxRejectionReports = orDefault(m.MaxRejectionReports, DefaultMaxRejectionReports)
	m.Teardown = orDefault(m.Teardown, 2*t.Call)
	m.MaxTimerShare = orDefault(m.MaxTimerShare, DefaultMaxTimerShare)
	m.MaxEntryAlloc = orDefault(m.MaxEntryAlloc, DefaultMaxEntryAlloc)
	return l
}

// Validate reports every field of o that no default can stand in for: a negative time
// bound or limit (zero means the default) and a MaxTimerShare over 100 percent. A nil o is
// valid. [New] panics with the same error; a host that configures a Sandbox from its users'
// options calls Validate first and returns the error.
func (o *Options) Validate() error {
	if o == nil {
		return nil
	}
	var errs []error
	bad := func(field string, v any, def string) {
		errs = append(errs, fmt.Errorf("sandbox: %s is %v: it must be positive, or zero for the default (%s)", field, v, def))
	}
	if t := o.Timeouts; t != nil {
		for _, f := range []struct {
			name string
			v    time.Duration
			def  time.Duration
		}{{"Timeouts.VM", t.VM, DefaultVMTimeout}, {"Timeouts.Mount", t.Mount, DefaultMountTimeout}, {"Timeouts.Call", t.Call, DefaultCallTimeout}} {
			if f.v < 0 {
				bad(f.name, f.v, f.def.String())
			}
		}
	}
	if m := o.Limits; m != nil {
		for _, f := range []struct {
			name string
			v    int
			def  int
		}{
			{"Limits.MaxCallStackSize", m.MaxCallStackSize, DefaultMaxCallStackSize},
			{"Limits.MaxDepth", m.MaxDepth, DefaultMaxDepth},
			{"Limits.MaxBytes", m.MaxBytes, DefaultMaxBytes},
			{"Limits.MaxNodes", m.MaxNodes, DefaultMaxNodes},
			{"Limits.MaxNesting", m.MaxNesting, DefaultMaxNesting},
			{"Limits.MaxNestingWork", m.MaxNestingWork, DefaultMaxNestingWork},
			{"Limits.MaxTimers", m.MaxTimers, DefaultMaxTimers},
			{"Limits.MaxListeners", m.MaxListeners, DefaultMaxListeners},
			{"Limits.MaxTools", m.MaxTools, DefaultMaxTools},
			{"Limits.MaxServices", m.MaxServices, DefaultMaxServices},
			{"Limits.MaxLogBytes", m.MaxLogBytes, DefaultMaxLogBytes},
			{"Limits.MaxLogLine", m.MaxLogLine, DefaultMaxLogLine},
			{"Limits.MaxRejectionReports", m.MaxRejectionReports, DefaultMaxRejectionReports},
			{"Limits.MaxTimerShare", m.MaxTimerShare, DefaultMaxTimerShare},
			{"Limits.MaxEntryAlloc", m.MaxEntryAlloc, DefaultMaxEntryAlloc},
		} {
			if f.v < 0 {
				bad(f.name, f.v, fmt.Sprint(f.def))
			}
		}
		if m.Teardown < 0 {
			bad("Limits.Teardown", m.Teardown, "2×Timeouts.Call")
		}
		if m.MaxTimerShare > 100 {
			errs = append(errs, fmt.Errorf("sandbox: Limits.MaxTimerShare is %d: it is a percentage of wall time, at most 100, or zero for the default (%d)", m.MaxTimerShare, DefaultMaxTimerShare))
		}
	}
	return errors.Join(errs...)
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Facade returns the façade the sandbox was configured with.
func (sb *Sandbox) Facade() *Facade { return sb.facade }

// Timeouts returns the effective time bounds.
func (sb *Sandbox) Timeouts() Timeouts { return sb.timeouts }

// Limits returns the effective limits.
func (sb *Sandbox) Limits() Limits { return sb.limits }

// Close stops the sandbox: later entries fail with ErrClosed, the contexts of running async Go
// calls are cancelled, and Close waits (bounded by ctx) for the goroutines of every engine
// to return. Close the mounts' fibers first; Close does not dispose anything in the kit.
func (sb *Sandbox) Close(ctx context.Context) error {
	sb.mu.Lock()
	sb.closed = true
	engines := make([]*sessionEngine, 0, len(sb.engines))
	for _, se := range sb.engines {
		engines = append(engines, se)
	}
	sb.mu.Unlock()
	for _, se := range engines {
		se.lock.Retire()
	}
	if err := engine.WaitAll(ctx, &sb.wg); err != nil {
		return fmt.Errorf("sandbox: closing: waiting for async Go calls: %w", err)
	}
	return nil
}

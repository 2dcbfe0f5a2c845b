package kit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
)

// State is a fiber's lifecycle state. The labels match cordis.
type State int32

const (
	StatePending   State = iota // waiting for injected services
	StateLoading                // apply is running
	StateActive                 // apply returned nil; registrations are live
	StateFailed                 // apply failed; everything it registered was rolled back
	StateDisposed               // disposed; final
	StateUnloading              // effects are being reversed
)

var stateNames = [...]string{"pending", "loading", "active", "failed", "disposed", "unloading"}

func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// A Plugin is a unit of registration: Apply registers listeners, services, tools, timers
// and child plugins on the Context it receives; all of them are undone when the plugin's
// fiber is disposed or unloads.
type Plugin struct {
	// Name identifies the plugin in inspection output and errors. Required.
	Name string
	// Inject lists the service keys the plugin needs. The fiber stays pending until
	// every one is provided by an active fiber, and returns to pending when one goes away.
	Inject []string
	// Apply registers the plugin's effects. A non-nil error (or a panic) rolls back
	// everything Apply registered and leaves the fiber failed with that error.
	Apply func(c *Context) error
	// Session, when set, makes the fiber and every fiber below it belong to that session
	// (package doc, "Sessions"): its listeners hear only that session's scoped emits, its
	// services and tools are seen by that session alone. Empty means the parent's session;
	// a fiber of one session cannot start a plugin of another.
	Session string
	// Shares lists the service keys a plugin of a session provides to every session, as
	// the runtime's own services are (what the runtime author declares shared). Its other
	// services stay its session's. Ignored for a plugin without a session.
	Shares []string
}

// A Fiber is one running instance of a Plugin: its state, its effects and its children.
// All methods are safe for concurrent use.
type Fiber struct {
	id      uint64
	root    *root
	parent  *Fiber
	name    string
	session string // "" for the runtime's own fibers; fixed at creation
	shares  []string
	inject  []string
	apply   func(*Context) error
	ctx     *Context

	state atomic.Int32
	trans sync.Mutex // held for a whole transition: one transition at a time

	mu        sync.Mutex // guards the fields below; never held while calling out
	err       error
	scope     *scope    // the current activation; nil when not loading or active
	effects   []*effect // registrations of the current activation, oldest first
	dropped   int       // effects in effects that are done, compacted away in bulk
	busy      chan struct{}
	parentEff *effect // the parent's effect that disposes this fiber
}

// An effect is one registration owned by a fiber, undone by dispose.
type effect struct {
	what    label
	dispose func(ctx context.Context) error
	done    atomic.Bool
}

// A label names an effect in error messages. It is formatted only when an error needs it,
// so registering costs no string building.
type label struct{ kind, name string }

func (l label) String() string {
	if l.name == "" {
		return l.kind
	}
	return l.kind + " " + strconv.Quote(l.name)
}

// ID returns the fiber's unique id within its runtime.
func (f *Fiber) ID() uint64 { return f.id }

// Name returns the plugin name the fiber runs.
func (f *Fiber) Name() string { return f.name }

// Session returns the session the fiber belongs to, or "" for a fiber of the runtime's
// own (shared by every session).
func (f *Fiber) Session() string { return f.session }

// Parent returns the parent fiber, or nil for the root.
func (f *Fiber) Parent() *Fiber { return f.parent }

// Context returns the fiber's own Context, the one its plugin's Apply receives.
func (f *Fiber) Context() *Context { return f.ctx }

// Inject returns a copy of the service keys the fiber's plugin declared.
func (f *Fiber) Inject() []string { return append([]string(nil), f.inject...) }

// State returns the current state.
func (f *Fiber) State() State { return State(f.state.Load()) }

// Err returns the error that left the fiber failed, or nil.
func (f *Fiber) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *Fiber) String() string { return fmt.Sprintf("%s#%d", f.name, f.id) }

// Await blocks until no transition is running (the fiber is pending, active, failed or
// disposed) or ctx is done. It returns the fiber's error when it failed.
func (f *Fiber) Await(ctx context.Context) error {
	for {
		f.mu.Lock()
		busy, err := f.busy, f.err
		f.mu.Unlock()
		if busy == nil {
			if f.State() == StateFailed {
				return err
			}
			return nil
		}
		select {
		case <-busy:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// Dispose reverses every effect of the fiber, newest first (child fibers are effects, so
// children go before their parent), and returns at quiescence: no listener, timer callback
// or tool body of the fiber is running and none will run. Services it provided are hidden
// first, so their dependents unload before anything else of this fiber is undone.
// Disposing a disposed fiber is a no-op. ctx bounds the wait for running callbacks; on
// expiry Dispose still finishes the teardown and returns the context's error.
//
// Dispose must not be called from inside one of the fiber's own callbacks with a ctx that
// never expires: it would wait for itself.
func (f *Fiber) Dispose(ctx context.Context) error {
	f.trans.Lock()
	defer f.trans.Unlock()
	if f.State() == StateDisposed {
		return nil
	}
	f.begin()
	defer f.end()
	f.setState(StateUnloading)
	err := f.teardown(ctx)
	f.setState(StateDisposed)
	// A disposed fiber never loads again (apply runs under trans). Its parent may keep the
	// done effect that points here until it compacts its list: drop what the plugin holds.
	f.apply = nil
	f.root.removeFiber(f)
	if pe := f.parentEff; pe != nil && pe.done.CompareAndSwap(false, true) {
		f.parent.dropEffect(pe)
	}
	return err
}

func (f *Fiber) setState(s State) { f.state.Store(int32(s)) }

func (f *Fiber) begin() {
	f.mu.Lock()
	f.busy = make(chan struct{})
	f.mu.Unlock()
}

func (f *Fiber) end() {
	f.mu.Lock()
	close(f.busy)
	f.busy = nil
	f.mu.Unlock()
}

// reconcile brings the fiber in line with the service store: a pending (or failed) fiber
// whose injects are all available loads; a loaded fiber missing one unloads to pending.
func (f *Fiber) reconcile() {
	f.trans.Lock()
	defer f.trans.Unlock()
	missing := f.root.missing(f.session, f.inject)
	switch st := f.State(); {
	case st == StateDisposed:
	case len(missing) == 0 && st == StatePending:
		f.load()
	case len(missing) > 0 && st == StateActive:
		f.begin()
		f.setState(StateUnloading)
		if err := f.teardown(context.Background()); err != nil {
			f.root.logger.Warn("kit: errors while unloading plugin", "plugin", f.name, "err", err)
		}
		f.setState(StatePending)
		f.end()
	case len(missing) > 0 && st == StateFailed:
		// A failed fiber whose dependency went away gets another chance when it returns.
		f.mu.Lock()
		f.err = nil
		f.mu.Unlock()
		f.setState(StatePending)
	}
}

// load runs apply in a fresh scope. Called with trans held and the fiber pending.
func (f *Fiber) load() {
	f.begin()
	defer f.end()
	f.mu.Lock()
	f.scope, f.err = newScope(), nil
	f.mu.Unlock()
	f.setState(StateLoading)
	if err := f.callApply(); err != nil {
		if rbErr := f.teardown(context.Background()); rbErr != nil {
			err = errors.Join(err, fmt.Errorf("rolling back: %w", rbErr))
		}
		f.mu.Lock()
		f.err = err
		f.mu.Unlock()
		f.setState(StateFailed)
		f.root.logger.Warn("kit: plugin failed", "plugin", f.name, "err", err)
		return
	}
	f.setState(StateActive)
	f.root.reconcile(f.root.keysOf(f))
}

func (f *Fiber) callApply() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plugin %q: %w: %v", f.name, ErrPanic, r)
		}
	}()
	if err := f.apply(f.ctx); err != nil {
		return fmt.Errorf("plugin %q: %w", f.name, err)
	}
	return nil
}

// teardown hides the fiber's services (so dependents settle first), closes the scope,
// waits for running callbacks to leave, then reverses the effects newest first.
func (f *Fiber) teardown(ctx context.Context) error {
	f.root.reconcile(f.root.keysOf(f)) // the fiber is no longer active: its services are hidden
	f.mu.Lock()
	sc, effs := f.scope, f.effects
	f.effects, f.dropped = nil, 0
	f.mu.Unlock()
	var errs []error
	if sc != nil {
		sc.close()
		if err := sc.wait(ctx); err != nil {
			errs = append(errs, fmt.Errorf("plugin %q: waiting for running callbacks: %w", f.name, err))
		}
	}
	for i := len(effs) - 1; i >= 0; i-- {
		if e := effs[i]; e.done.CompareAndSwap(false, true) {
			if err := runDispose(ctx, e); err != nil {
				errs = append(errs, err)
			}
		}
	}
	f.mu.Lock()
	if f.scope == sc {
		f.scope = nil
	}
	f.mu.Unlock()
	return errors.Join(errs...)
}

func runDispose(ctx context.Context, e *effect) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("disposing %s: %w: %v", e.what, ErrPanic, r)
		}
	}()
	if err := e.dispose(ctx); err != nil {
		return fmt.Errorf("disposing %s: %w", e.what, err)
	}
	return nil
}

// addEffect records a registration on the current activation. setup runs under the
// fiber's lock once the registration is accepted, so a concurrent teardown either sees
// the effect or rejects it; it must not call back into the fiber.
func (f *Fiber) addEffect(what label, setup func(*scope), dispose func(context.Context) error) (*effect, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.scope == nil || !f.scope.open() {
		return nil, fmt.Errorf("kit: cannot register %s on plugin %q (%s): %w", what, f.name, f.State(), ErrInactive)
	}
	e := &effect{what: what, dispose: dispose}
	if setup != nil {
		setup(f.scope)
	}
	f.effects = append(f.effects, e)
	return e, nil
}

// cancelEffect undoes one effect early (a listener's off func, a fired timeout).
func (f *Fiber) cancelEffect(ctx context.Context, e *effect) error {
	if !e.done.CompareAndSwap(false, true) {
		return nil
	}
	f.dropEffect(e)
	return runDispose(ctx, e)
}

// dropEffect forgets an effect that is done (its done flag is already set). Done effects
// are compacted away in bulk once they are half the list, so a fiber whose children come
// and go by the thousand (the mount group) does not pay a linear search per removal.
func (f *Fiber) dropEffect(e *effect) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dropped++
	if f.dropped < 16 || 2*f.dropped < len(f.effects) {
		return
	}
	live := f.effects[:0]
	for _, x := range f.effects {
		if !x.done.Load() {
			live = append(live, x)
		}
	}
	clear(f.effects[len(live):])
	f.effects, f.dropped = live, 0
}

// activeScope returns the current activation if it accepts callbacks.
func (f *Fiber) activeScope() *scope {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.scope == nil || !f.scope.open() {
		return nil
	}
	return f.scope
}

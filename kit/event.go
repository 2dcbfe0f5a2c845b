package kit

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Mode is an event's dispatch mode. A new mode is a constant here, its declaration type
// and constructor, a row in catalog.Modes (which the generator reads) and an adapter in
// sandbox/bind; catalog/scan's TestModesMatchTheKit checks that they agree.
type Mode uint8

const (
	ModeEmit      Mode = iota // fire and forget
	ModeParallel              // awaited fan-out; errors joined
	ModeSerial                // awaited in registration order until a bail value
	ModeBail                  // synchronous; the first bail value wins
	ModeWaterfall             // each listener gets next and may transform or veto
)

var modeNames = [...]string{"emit", "parallel", "serial", "bail", "waterfall"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

var nextEventID atomic.Int32

// eventInfo is what every event type shares: its name, mode, a process-wide index into
// each runtime's listener table, and where its payload P keeps its Session, if it has one.
type eventInfo struct {
	name    string
	mode    Mode
	id      int32
	scoped  bool    // P has a Session field
	sessOff uintptr // its offset in P
}

func newEventInfo[P any](name string, mode Mode) eventInfo {
	if name == "" {
		panic("kit: event declared with an empty name")
	}
	e := eventInfo{name: name, mode: mode, id: nextEventID.Add(1) - 1}
	e.sessOff, e.scoped = sessionField[P](name)
	return e
}

// sessionField finds P's field of type Session. Declaring a payload with two is a
// programmer error, reported when the event is declared.
func sessionField[P any](name string) (off uintptr, ok bool) {
	t := reflect.TypeFor[P]()
	if t.Kind() != reflect.Struct {
		return 0, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type != reflect.TypeFor[Session]() {
			continue
		}
		if ok {
			panic(fmt.Sprintf("kit: event %q: payload %s has two kit.Session fields; an event belongs to at most one session", name, t))
		}
		off, ok = f.Offset, true
	}
	return off, ok
}

// Scoped reports whether the event is session-scoped: its payload has a Session field.
func (e *eventInfo) Scoped() bool { return e.scoped }

// An audience is whom one emit reaches: every listener, or the runtime's own listeners
// (of fibers without a session) and those of one session.
type audience struct {
	session string
	narrow  bool
}

func (a audience) reaches(l *Fiber) bool {
	return !a.narrow || l.session == "" || l.session == a.session
}

// audience returns whom an emit of the payload at p reaches: a scoped event's payload
// names its session (empty: runtime-wide); an unscoped event reaches everyone.
func (e *eventInfo) audience(p unsafe.Pointer) audience {
	if !e.scoped {
		return audience{}
	}
	s := *(*Session)(unsafe.Add(p, e.sessOff))
	return audience{session: string(s), narrow: s != ""}
}

// audienceCtx is audience for awaited emits, whose ctx says on whose behalf they run: an
// unscoped event emitted for a session (kit.WithSession) reaches that session's listeners
// and the runtime's own, so no other session's listener can read or fail the call.
func (e *eventInfo) audienceCtx(ctx context.Context, p unsafe.Pointer) audience {
	if e.scoped {
		return e.audience(p)
	}
	if s, ok := SessionFrom(ctx); ok {
		return audience{session: s, narrow: true}
	}
	return audience{}
}

// Name returns the event name, e.g. "agent/error".
func (e *eventInfo) Name() string { return e.name }

// Mode returns the dispatch mode.
func (e *eventInfo) Mode() Mode { return e.mode }

// A listener is one registration: the typed function, the activation it belongs to and
// its fiber (for error reports).
type listener[F any] struct {
	// fn is dropped when the listener is removed: a dead listener waits in its hub until
	// the next compaction, and must not keep the function (and a mount's whole realm it
	// closes over) reachable until then.
	fn    atomic.Pointer[F]
	scope *scope
	fiber *Fiber
	dead  atomic.Bool // removed: dispatch skips it until the hub compacts it away
}

// enter returns the listener's function if dispatch may call it; a true result must be
// paired with l.scope.exit.
func (l *listener[F]) enter() (F, bool) {
	var zero F
	if l.dead.Load() || !l.scope.enter() {
		return zero, false
	}
	fn := l.fn.Load()
	if fn == nil { // removed since the check above
		l.scope.exit()
		return zero, false
	}
	return *fn, true
}

// A hub holds one event's listeners in one runtime. Dispatch reads a snapshot: a slice
// header whose elements never change once published. Adding appends past the end of the
// published length (readers never look there); removing marks the listener dead, and the
// dead are compacted into a fresh array once they are half the list. Both are amortized
// O(1), so mounting or unmounting thousands of listeners stays linear.
type hub[F any] struct {
	mu   sync.Mutex
	list atomic.Pointer[[]*listener[F]]
	dead int // guarded by mu
}

func (h *hub[F]) snapshot() []*listener[F] {
	if p := h.list.Load(); p != nil {
		return *p
	}
	return nil
}

func (h *hub[F]) add(l *listener[F]) {
	h.mu.Lock()
	defer h.mu.Unlock()
	next := append(h.snapshot(), l)
	h.list.Store(&next)
}

func (h *hub[F]) remove(l *listener[F]) {
	h.mu.Lock()
	defer h.mu.Unlock()
	// Marked under the lock, so a compaction never drops a listener it has not counted.
	if l.dead.Swap(true) {
		return
	}
	l.fn.Store(nil)
	h.dead++
	old := h.snapshot()
	if 2*h.dead < len(old) {
		return
	}
	next := make([]*listener[F], 0, len(old)-h.dead)
	for _, x := range old {
		if !x.dead.Load() {
			next = append(next, x)
		}
	}
	h.list.Store(&next)
	h.dead = 0
}

// hubTable maps event ids to hubs for one runtime; reads are lock-free.
type hubTable struct {
	mu   sync.Mutex
	hubs atomic.Pointer[[]any]
}

func (t *hubTable) get(id int32) any {
	p := t.hubs.Load()
	if p == nil || int(id) >= len(*p) {
		return nil
	}
	return (*p)[id]
}

func hubOf[F any](c *Context, id int32) *hub[F] {
	h, _ := c.fiber.root.hubs.get(id).(*hub[F])
	return h
}

func hubFor[F any](c *Context, id int32) *hub[F] {
	if h := hubOf[F](c, id); h != nil {
		return h
	}
	t := &c.fiber.root.hubs
	t.mu.Lock()
	defer t.mu.Unlock()
	var old []any
	if p := t.hubs.Load(); p != nil {
		old = *p
	}
	if int(id) < len(old) && old[id] != nil {
		return old[id].(*hub[F])
	}
	n := max(len(old), int(id)+1)
	next := make([]any, n)
	copy(next, old)
	h := &hub[F]{}
	next[id] = h
	t.hubs.Store(&next)
	return h
}

// on registers fn as an effect of c's fiber and returns its off func.
func on[F any](c *Context, ev *eventInfo, fn F) (off func(), err error) {
	if c == nil {
		return nil, fmt.Errorf("kit: listening to %q: %w", ev.name, ErrNilContext)
	}
	h := hubFor[F](c, ev.id)
	l := &listener[F]{fiber: c.fiber}
	l.fn.Store(&fn)
	f := c.fiber
	eff, err := f.addEffect(label{"listener of", ev.name}, func(sc *scope) {
		l.scope = sc
		h.add(l)
	}, func(context.Context) error {
		h.remove(l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func() { _ = f.cancelEffect(context.Background(), eff) }, nil
}

// recovered turns a recovered panic value into an error naming the listener.
func recovered(ev *eventInfo, f *Fiber, r any) error {
	return fmt.Errorf("listener of %q in plugin %q: %w: %v", ev.name, f.name, ErrPanic, r)
}

func listenerErr(ev *eventInfo, f *Fiber, err error) error {
	return fmt.Errorf("listener of %q in plugin %q: %w", ev.name, f.name, err)
}

// An Event is an emit-mode event: fire and forget. Listeners run synchronously in
// registration order on the emitting goroutine; a panicking listener is recovered and
// logged and the rest still run. Emit waits for each listener to return and for nothing
// else: a JavaScript listener's synchronous part runs (bounded by the sandbox's
// CallTimeout), and a promise it returns is not awaited — the sandbox reports its
// rejection. A listener that wants its work awaited belongs on a parallel or serial event.
type Event[P any] struct{ eventInfo }

// NewEvent declares an emit-mode event. P is the payload struct; its fields, in order, are
// the parameters JavaScript listeners receive.
func NewEvent[P any](name string) *Event[P] {
	return &Event[P]{newEventInfo[P](name, ModeEmit)}
}

// On registers fn as a listener, owned by c's fiber. off removes it early.
func (e *Event[P]) On(c *Context, fn func(P)) (off func(), err error) {
	return on(c, &e.eventInfo, fn)
}

// Emit calls every listener with p. With no listeners it costs a few loads and no
// allocation. It panics if c is nil.
func (e *Event[P]) Emit(c *Context, p P) {
	if c == nil {
		panic("kit: Emit of " + e.name + " on a nil *Context")
	}
	h := hubOf[func(P)](c, e.id)
	if h == nil {
		return
	}
	aud := e.audience(unsafe.Pointer(&p))
	for _, l := range h.snapshot() {
		if !aud.reaches(l.fiber) {
			continue
		}
		if fn, ok := l.enter(); ok {
			e.call(l, fn, p)
		}
	}
}

func (e *Event[P]) call(l *listener[func(P)], fn func(P), p P) {
	defer func() {
		l.scope.exit()
		if r := recover(); r != nil {
			l.fiber.root.logger.Error("kit: listener panicked", "err", recovered(&e.eventInfo, l.fiber, r))
		}
	}()
	fn(p)
}

// HasListeners reports whether any listener is registered in c's runtime.
func (e *Event[P]) HasListeners(c *Context) bool {
	h := hubOf[func(P)](c, e.id)
	if h == nil {
		return false
	}
	for _, l := range h.snapshot() {
		if !l.dead.Load() {
			return true
		}
	}
	return false
}

// parallelFn is the listener signature of parallel-mode events.
type parallelFn[P any] = func(ctx context.Context, p P) error

// A ParallelEvent is awaited fan-out: every listener runs on its own goroutine and Emit
// returns when all have, with their errors joined.
type ParallelEvent[P any] struct{ eventInfo }

// NewParallel declares a parallel-mode event.
func NewParallel[P any](name string) *ParallelEvent[P] {
	return &ParallelEvent[P]{newEventInfo[P](name, ModeParallel)}
}

// On registers fn as a listener, owned by c's fiber.
func (e *ParallelEvent[P]) On(c *Context, fn func(ctx context.Context, p P) error) (off func(), err error) {
	return on[parallelFn[P]](c, &e.eventInfo, fn)
}

// Emit runs every listener concurrently and waits for all of them. Listeners of fibers
// excluded from ctx with WithoutListenersOf are passed over.
func (e *ParallelEvent[P]) Emit(ctx context.Context, c *Context, p P) error {
	if c == nil {
		return fmt.Errorf("kit: emitting %q: %w", e.name, ErrNilContext)
	}
	h := hubOf[parallelFn[P]](c, e.id)
	if h == nil {
		return nil
	}
	ls := h.snapshot()
	errs := make([]error, len(ls))
	skip := skipped(ctx)
	aud := e.audienceCtx(ctx, unsafe.Pointer(&p))
	var wg sync.WaitGroup
	for i, l := range ls {
		if !aud.reaches(l.fiber) || skip.has(l.fiber) {
			continue
		}
		fn, ok := l.enter()
		if !ok {
			continue
		}
		wg.Go(func() { errs[i] = e.call(ctx, l, fn, p) })
	}
	wg.Wait()
	return joinErrs(errs)
}

func (e *ParallelEvent[P]) call(ctx context.Context, l *listener[parallelFn[P]], fn parallelFn[P], p P) (err error) {
	defer func() {
		l.scope.exit()
		if r := recover(); r != nil {
			err = recovered(&e.eventInfo, l.fiber, r)
		}
	}()
	if err := fn(ctx, p); err != nil {
		return listenerErr(&e.eventInfo, l.fiber, err)
	}
	return nil
}

// joinErrs joins the non-nil errors; a single one is returned as it is.
func joinErrs(errs []error) error {
	var out []error
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return errors.Join(out...) // nil when out is empty
}

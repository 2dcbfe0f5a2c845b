package kit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

type serialFn[P any, R comparable] = func(ctx context.Context, p P) (R, error)

// A SerialEvent is awaited in registration order until a listener returns a bail value:
// any R other than its zero value, or an error. A JavaScript listener passes, as in
// cordis, with undefined, null or false, and with anything that converts to the zero R.
type SerialEvent[P any, R comparable] struct{ eventInfo }

// NewSerial declares a serial-mode event whose listeners may bail with an R.
func NewSerial[P any, R comparable](name string) *SerialEvent[P, R] {
	return &SerialEvent[P, R]{newEventInfo[P](name, ModeSerial)}
}

// On registers fn as a listener, owned by c's fiber.
func (e *SerialEvent[P, R]) On(c *Context, fn func(ctx context.Context, p P) (R, error)) (off func(), err error) {
	return on[serialFn[P, R]](c, &e.eventInfo, fn)
}

// Emit calls the listeners one after another and returns the first bail value, or the
// zero R when none bails. A listener error stops the chain and is returned. Listeners of
// fibers excluded from ctx with WithoutListenersOf are passed over.
func (e *SerialEvent[P, R]) Emit(ctx context.Context, c *Context, p P) (R, error) {
	var zero R
	if c == nil {
		return zero, fmt.Errorf("kit: emitting %q: %w", e.name, ErrNilContext)
	}
	h := hubOf[serialFn[P, R]](c, e.id)
	if h == nil {
		return zero, nil
	}
	skip := skipped(ctx)
	aud := e.audienceCtx(ctx, unsafe.Pointer(&p))
	for _, l := range h.snapshot() {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		if !aud.reaches(l.fiber) || skip.has(l.fiber) {
			continue
		}
		fn, ok := l.enter()
		if !ok {
			continue
		}
		r, err := e.call(ctx, l, fn, p)
		if err != nil || r != zero {
			return r, err
		}
	}
	return zero, nil
}

func (e *SerialEvent[P, R]) call(ctx context.Context, l *listener[serialFn[P, R]], fn serialFn[P, R], p P) (r R, err error) {
	defer func() {
		l.scope.exit()
		if x := recover(); x != nil {
			err = recovered(&e.eventInfo, l.fiber, x)
		}
	}()
	r, err = fn(ctx, p)
	if err != nil {
		err = listenerErr(&e.eventInfo, l.fiber, err)
	}
	return r, err
}

type bailFn[P any, R comparable] = func(p P) R

// A BailEvent is synchronous: listeners run in registration order and the first non-zero
// result wins (a JavaScript listener passes as a SerialEvent's does). A panicking listener
// is recovered, logged and skipped.
type BailEvent[P any, R comparable] struct{ eventInfo }

// NewBail declares a bail-mode event.
func NewBail[P any, R comparable](name string) *BailEvent[P, R] {
	return &BailEvent[P, R]{newEventInfo[P](name, ModeBail)}
}

// On registers fn as a listener, owned by c's fiber.
func (e *BailEvent[P, R]) On(c *Context, fn func(p P) R) (off func(), err error) {
	return on[bailFn[P, R]](c, &e.eventInfo, fn)
}

// Emit returns the first non-zero listener result, or the zero R. It panics if c is nil.
func (e *BailEvent[P, R]) Emit(c *Context, p P) R {
	var zero R
	if c == nil {
		panic("kit: Emit of " + e.name + " on a nil *Context")
	}
	h := hubOf[bailFn[P, R]](c, e.id)
	if h == nil {
		return zero
	}
	aud := e.audience(unsafe.Pointer(&p))
	for _, l := range h.snapshot() {
		if !aud.reaches(l.fiber) {
			continue
		}
		fn, ok := l.enter()
		if !ok {
			continue
		}
		if r := e.call(l, fn, p); r != zero {
			return r
		}
	}
	return zero
}

func (e *BailEvent[P, R]) call(l *listener[bailFn[P, R]], fn bailFn[P, R], p P) (r R) {
	defer func() {
		l.scope.exit()
		if x := recover(); x != nil {
			l.fiber.root.logger.Error("kit: listener panicked", "err", recovered(&e.eventInfo, l.fiber, x))
		}
	}()
	return fn(p)
}

type waterfallFn[P, R any] = func(ctx context.Context, p P, next func() (R, error)) (R, error)

// A WaterfallEvent chains its listeners: each receives next, which runs the rest of the
// chain (ending with the default Emit was given). A listener that returns without calling
// next short-circuits the chain with its own result (a veto or an override).
type WaterfallEvent[P, R any] struct{ eventInfo }

// NewWaterfall declares a waterfall-mode event.
func NewWaterfall[P, R any](name string) *WaterfallEvent[P, R] {
	return &WaterfallEvent[P, R]{newEventInfo[P](name, ModeWaterfall)}
}

// On registers fn as a listener, owned by c's fiber.
func (e *WaterfallEvent[P, R]) On(c *Context, fn func(ctx context.Context, p P, next func() (R, error)) (R, error)) (off func(), err error) {
	return on[waterfallFn[P, R]](c, &e.eventInfo, fn)
}

// Emit runs the chain. last is the default at its end; nil means the zero R. Listeners
// of fibers excluded from ctx with WithoutListenersOf are passed over.
//
// Each listener's next runs the rest of the chain at most once: a second call returns
// the first call's result, so a listener that calls next many times cannot make the
// chain behind it run many times (which across n such listeners would be exponential).
// A call while the first is still running, or a first call after the listener has
// returned, is an error wrapping ErrNext.
func (e *WaterfallEvent[P, R]) Emit(ctx context.Context, c *Context, p P, last func() (R, error)) (R, error) {
	var zero R
	if c == nil {
		return zero, fmt.Errorf("kit: emitting %q: %w", e.name, ErrNilContext)
	}
	var ls []*listener[waterfallFn[P, R]]
	if h := hubOf[waterfallFn[P, R]](c, e.id); h != nil {
		ls = h.snapshot()
	}
	skip := skipped(ctx)
	aud := e.audienceCtx(ctx, unsafe.Pointer(&p))
	var step func(i int) (R, error)
	step = func(i int) (R, error) {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		for ; i < len(ls); i++ {
			if !aud.reaches(ls[i].fiber) || skip.has(ls[i].fiber) {
				continue
			}
			if fn, ok := ls[i].enter(); ok {
				n := &onceNext[R]{event: e.name, fiber: ls[i].fiber, rest: func() (R, error) { return step(i + 1) }}
				defer n.close()
				return e.call(ctx, ls[i], fn, p, n.call)
			}
		}
		if last == nil {
			return zero, nil
		}
		return last()
	}
	return step(0)
}

// ErrNext reports a waterfall listener's misuse of next: calling it again while the first
// call is still running, or for the first time after the listener returned.
var ErrNext = errors.New("waterfall next called out of turn")

// onceNext is one listener's next: it runs the rest of the chain on the first call and
// replays that result on later ones.
type onceNext[R any] struct {
	event string
	fiber *Fiber
	rest  func() (R, error)

	mu    sync.Mutex
	state nextState
	r     R
	err   error
}

type nextState uint8

const (
	nextUnused  nextState = iota // not called yet; the listener is running
	nextRunning                  // the first call is running the rest of the chain
	nextDone                     // r and err hold the rest of the chain's result
	nextClosed                   // the listener returned without calling next
)

func (n *onceNext[R]) call() (R, error) {
	n.mu.Lock()
	switch n.state {
	case nextDone:
		defer n.mu.Unlock()
		return n.r, n.err
	case nextRunning:
		n.mu.Unlock()
		var zero R
		return zero, fmt.Errorf("listener of %q in plugin %q called next again before its first call returned: %w; call next once and await its result", n.event, n.fiber.name, ErrNext)
	case nextClosed:
		n.mu.Unlock()
		var zero R
		return zero, fmt.Errorf("listener of %q in plugin %q called next after it returned: %w; call next before the listener returns (await it)", n.event, n.fiber.name, ErrNext)
	}
	n.state = nextRunning
	n.mu.Unlock()
	r, err := n.rest()
	n.mu.Lock()
	n.state, n.r, n.err = nextDone, r, err
	n.mu.Unlock()
	return r, err
}

// close ends the listener's turn: a next it never called can no longer run the chain.
func (n *onceNext[R]) close() {
	n.mu.Lock()
	if n.state == nextUnused {
		n.state = nextClosed
	}
	n.mu.Unlock()
}

// WithoutListenersOf returns a ctx whose awaited emits (serial, parallel and waterfall)
// pass over the listeners of each given fiber and of every fiber below it, on top of
// those ctx already excludes. A mount manager uses it to keep the listeners its mounts
// wrote away from calls that must not depend on them, such as its own control tools.
func WithoutListenersOf(ctx context.Context, fibers ...*Fiber) context.Context {
	prev := skipped(ctx)
	next := &skipSet{under: append(append([]*Fiber(nil), prev.list()...), fibers...)}
	return context.WithValue(ctx, skipKey{}, next)
}

type skipKey struct{}

// A skipSet is the fibers whose subtrees an emit passes over.
type skipSet struct{ under []*Fiber }

func skipped(ctx context.Context) *skipSet {
	s, _ := ctx.Value(skipKey{}).(*skipSet)
	return s
}

func (s *skipSet) list() []*Fiber {
	if s == nil {
		return nil
	}
	return s.under
}

// has reports whether f is one of the set's fibers or below one. Fiber parents never
// change, so the walk needs no lock.
func (s *skipSet) has(f *Fiber) bool {
	if s == nil {
		return false
	}
	for ; f != nil; f = f.parent {
		for _, x := range s.under {
			if f == x {
				return true
			}
		}
	}
	return false
}

func (e *WaterfallEvent[P, R]) call(ctx context.Context, l *listener[waterfallFn[P, R]], fn waterfallFn[P, R], p P, next func() (R, error)) (r R, err error) {
	defer func() {
		l.scope.exit()
		if x := recover(); x != nil {
			err = recovered(&e.eventInfo, l.fiber, x)
		}
	}()
	r, err = fn(ctx, p, next)
	if err != nil {
		err = listenerErr(&e.eventInfo, l.fiber, err)
	}
	return r, err
}

package kit

import (
	"context"
	"fmt"
)

type serialFn[P any, R comparable] = func(ctx context.Context, p P) (R, error)

// A SerialEvent is awaited in registration order until a listener returns a bail value:
// any R other than its zero value (cordis: anything but null, false or undefined), or an
// error.
type SerialEvent[P any, R comparable] struct{ eventInfo }

// NewSerial declares a serial-mode event whose listeners may bail with an R.
func NewSerial[P any, R comparable](name string) *SerialEvent[P, R] {
	return &SerialEvent[P, R]{newEventInfo(name, ModeSerial)}
}

// On registers fn as a listener, owned by c's fiber.
func (e *SerialEvent[P, R]) On(c *Context, fn func(ctx context.Context, p P) (R, error)) (off func(), err error) {
	return on[serialFn[P, R]](c, &e.eventInfo, fn)
}

// Emit calls the listeners one after another and returns the first bail value, or the
// zero R when none bails. A listener error stops the chain and is returned.
func (e *SerialEvent[P, R]) Emit(ctx context.Context, c *Context, p P) (R, error) {
	var zero R
	if c == nil {
		return zero, fmt.Errorf("kit: emitting %q: %w", e.name, ErrNilContext)
	}
	h := hubOf[serialFn[P, R]](c, e.id)
	if h == nil {
		return zero, nil
	}
	for _, l := range h.snapshot() {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		if !l.live() {
			continue
		}
		r, err := e.call(ctx, l, p)
		if err != nil || r != zero {
			return r, err
		}
	}
	return zero, nil
}

func (e *SerialEvent[P, R]) call(ctx context.Context, l *listener[serialFn[P, R]], p P) (r R, err error) {
	defer func() {
		l.scope.exit()
		if x := recover(); x != nil {
			err = recovered(&e.eventInfo, l.fiber, x)
		}
	}()
	r, err = l.fn(ctx, p)
	if err != nil {
		err = listenerErr(&e.eventInfo, l.fiber, err)
	}
	return r, err
}

type bailFn[P any, R comparable] = func(p P) R

// A BailEvent is synchronous: listeners run in registration order and the first non-zero
// result wins. A panicking listener is recovered, logged and skipped.
type BailEvent[P any, R comparable] struct{ eventInfo }

// NewBail declares a bail-mode event.
func NewBail[P any, R comparable](name string) *BailEvent[P, R] {
	return &BailEvent[P, R]{newEventInfo(name, ModeBail)}
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
	for _, l := range h.snapshot() {
		if !l.live() {
			continue
		}
		if r := e.call(l, p); r != zero {
			return r
		}
	}
	return zero
}

func (e *BailEvent[P, R]) call(l *listener[bailFn[P, R]], p P) (r R) {
	defer func() {
		l.scope.exit()
		if x := recover(); x != nil {
			l.fiber.root.logger.Error("kit: listener panicked", "err", recovered(&e.eventInfo, l.fiber, x))
		}
	}()
	return l.fn(p)
}

type waterfallFn[P, R any] = func(ctx context.Context, p P, next func() (R, error)) (R, error)

// A WaterfallEvent chains its listeners: each receives next, which runs the rest of the
// chain (ending with the default Emit was given). A listener that returns without calling
// next short-circuits the chain with its own result (a veto or an override).
type WaterfallEvent[P, R any] struct{ eventInfo }

// NewWaterfall declares a waterfall-mode event.
func NewWaterfall[P, R any](name string) *WaterfallEvent[P, R] {
	return &WaterfallEvent[P, R]{newEventInfo(name, ModeWaterfall)}
}

// On registers fn as a listener, owned by c's fiber.
func (e *WaterfallEvent[P, R]) On(c *Context, fn func(ctx context.Context, p P, next func() (R, error)) (R, error)) (off func(), err error) {
	return on[waterfallFn[P, R]](c, &e.eventInfo, fn)
}

// Emit runs the chain. last is the default at its end; nil means the zero R.
func (e *WaterfallEvent[P, R]) Emit(ctx context.Context, c *Context, p P, last func() (R, error)) (R, error) {
	var zero R
	if c == nil {
		return zero, fmt.Errorf("kit: emitting %q: %w", e.name, ErrNilContext)
	}
	var ls []*listener[waterfallFn[P, R]]
	if h := hubOf[waterfallFn[P, R]](c, e.id); h != nil {
		ls = h.snapshot()
	}
	var step func(i int) (R, error)
	step = func(i int) (R, error) {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		for ; i < len(ls); i++ {
			if ls[i].live() {
				return e.call(ctx, ls[i], p, func() (R, error) { return step(i + 1) })
			}
		}
		if last == nil {
			return zero, nil
		}
		return last()
	}
	return step(0)
}

func (e *WaterfallEvent[P, R]) call(ctx context.Context, l *listener[waterfallFn[P, R]], p P, next func() (R, error)) (r R, err error) {
	defer func() {
		l.scope.exit()
		if x := recover(); x != nil {
			err = recovered(&e.eventInfo, l.fiber, x)
		}
	}()
	r, err = l.fn(ctx, p, next)
	if err != nil {
		err = listenerErr(&e.eventInfo, l.fiber, err)
	}
	return r, err
}

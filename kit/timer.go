package kit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// TimerService provides timers whose lifetime is bound to a fiber. The root runs it as
// plugin "timer".
var TimerService = NewService[*Timer]("timer")

// Timer schedules callbacks as effects of a fiber: they are cancelled when the fiber is
// disposed or unloads, and a callback that is running then is waited for.
type Timer struct{}

// SetTimeout calls fn once after d, unless c's fiber goes away first. cancel stops it.
func (t *Timer) SetTimeout(c *Context, d time.Duration, fn func()) (cancel func(), err error) {
	return schedule(c, "timeout", d, false, fn)
}

// SetInterval calls fn every d until cancelled or c's fiber goes away.
func (t *Timer) SetInterval(c *Context, d time.Duration, fn func()) (cancel func(), err error) {
	return schedule(c, "interval", d, true, fn)
}

// Sleep waits for d. It returns early with an error when ctx is done or c's fiber unloads.
func (t *Timer) Sleep(ctx context.Context, c *Context, d time.Duration) error {
	if c == nil {
		return ErrNilContext
	}
	sc := c.fiber.activeScope()
	if sc == nil {
		return fmt.Errorf("kit: sleep on plugin %q (%s): %w", c.fiber.name, c.fiber.State(), ErrInactive)
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-sc.closing:
		return fmt.Errorf("kit: sleep interrupted: plugin %q is unloading: %w", c.fiber.name, ErrInactive)
	}
}

type timerEffect struct {
	mu      sync.Mutex
	tm      *time.Timer
	eff     *effect
	stopped bool
}

func schedule(c *Context, what string, d time.Duration, repeat bool, fn func()) (func(), error) {
	if c == nil {
		return nil, ErrNilContext
	}
	if fn == nil {
		return nil, fmt.Errorf("kit: %s needs a non-nil func", what)
	}
	d = max(d, 0)
	f := c.fiber
	te := &timerEffect{}
	fire := func(sc *scope) {
		if !sc.enter() {
			return
		}
		defer sc.exit()
		runTimer(f, what, fn)
		te.mu.Lock()
		if te.stopped {
			te.mu.Unlock()
			return
		}
		if repeat {
			te.tm.Reset(d)
			te.mu.Unlock()
			return
		}
		te.stopped = true
		eff := te.eff
		te.mu.Unlock()
		// A fired timeout is done: drop its effect so long-lived fibers do not accumulate them.
		if eff != nil && eff.done.CompareAndSwap(false, true) {
			f.dropEffect(eff)
		}
	}
	eff, err := f.addEffect(label{kind: what}, func(sc *scope) {
		te.mu.Lock()
		te.tm = time.AfterFunc(d, func() { fire(sc) })
		te.mu.Unlock()
	}, func(context.Context) error {
		te.mu.Lock()
		te.stopped = true
		te.tm.Stop()
		te.mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	te.mu.Lock()
	te.eff = eff
	te.mu.Unlock()
	return func() { _ = f.cancelEffect(context.Background(), eff) }, nil
}

func runTimer(f *Fiber, what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			f.root.logger.Error("kit: timer callback panicked", "plugin", f.name, "timer", what, "err", fmt.Errorf("%w: %v", ErrPanic, r))
		}
	}()
	fn()
}

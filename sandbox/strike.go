package sandbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// maxStrikes is how many runs in a row of a listener or timer callback may strike before it
// is removed. A run strikes when it ran past CallTimeout, used more than half of it, or
// returned a promise that did not settle within it: a listener that loops (or never
// settles) costs every emitter — and, one lock serving all realms, every mount — a whole
// CallTimeout per event, and an interval that spins just under the bound starves everyone
// without ever being interrupted.
const maxStrikes = 3

// maxWatchedRuns caps the promises of one callback watched at once; beyond it a run's
// promise is not watched (the oldest ones are judged first anyway).
const maxWatchedRuns = 16

// Strike reasons, a bit each so a report can tell "always the same" from "a mix".
const (
	strikeTimeout   = 1 << iota // interrupted by its own CallTimeout
	strikeMost                  // used more than half of CallTimeout
	strikeUnsettled             // its promise did not settle within CallTimeout
	strikeAlloc                 // stopped by its allocation budget (Limits.MaxEntryAlloc)
)

// A striker counts the strikes of one listener or timer callback and removes it (off) after
// maxStrikes in a row. All fields are guarded by the sandbox's lock: the callback, and the
// handlers that watch its promises, run only under it.
type striker struct {
	r       *Realm
	what    string // "the listener of \"tools/change\"", "the ctx.setInterval callback"
	removed string // "removed", "cancelled"
	off     func()
	share   *timerShare // if set (a timer callback), each run ends the run throttle reserved
	strikes int
	reasons int
	out     bool
	runs    []*watchedRun // runs whose promise had not settled when they returned
}

// A watchedRun is one run of the callback whose promise is still being watched.
type watchedRun struct {
	start  time.Time
	judged bool
}

// strikeOut wraps a listener so that after maxStrikes runs in a row that strike it is
// unsubscribed (off) and the mount's log says so.
func (f *ctxFacade) strikeOut(event string, fn goja.Callable, off func()) goja.Callable {
	s := &striker{r: f.r, what: fmt.Sprintf("the listener of %q", event), removed: "removed", off: off}
	return s.wrap(fn)
}

// wrap returns fn counting strikes. A struck-out callback no longer runs, even when an
// event snapshot taken before its removal still holds it.
func (s *striker) wrap(fn goja.Callable) goja.Callable {
	return func(this goja.Value, args ...goja.Value) (goja.Value, error) {
		r := s.r
		var used time.Duration
		if s.share != nil {
			// A timer callback: this run was reserved (throttle); end it however it ends.
			defer func() { s.share.end(time.Now(), used, r.engine.limits.MaxTimerShare) }()
		}
		s.judgeOverdue()
		if s.out {
			return goja.Undefined(), nil
		}
		cur := r.engine.lock.Current() // the entry delivering this call
		var start time.Time
		if s.share != nil {
			start = time.Now() // see preciseUsed; not for listeners, whose emit path is hotter
		}
		v, err := fn(this, args...)
		if cur != nil {
			used = r.engine.lock.Elapsed(cur) // less the time other mounts' calls ran inline
		}
		if s.share != nil {
			used = preciseUsed(used, start)
		}
		limit := r.engine.timeouts.Call
		switch {
		case err != nil && r.timedOut(cur, err):
			s.strike(strikeTimeout)
		case err != nil && r.overAlloc(cur, err):
			s.strike(strikeAlloc)
		case used > limit/2:
			s.strike(strikeMost)
		case err == nil && isPending(v):
			s.watch(v)
		default:
			s.strikes, s.reasons = 0, 0
		}
		return v, err
	}
}

// preciseUsed returns the smaller of two upper bounds on a run's time: elapsed, the
// entry's time less the time excused, read from the watchdog's coarse clock — which lags
// by more than a tick while the watchdog goroutine waits to be scheduled (161 ms measured
// for a 0.3 ms tool call under -race on a loaded machine: three such calls struck it
// out) — and the wall time since start, taken just before the run.
func preciseUsed(elapsed time.Duration, start time.Time) time.Duration {
	return min(elapsed, time.Since(start))
}

func isPending(v goja.Value) bool {
	p := asPromise(v)
	return p != nil && p.State() == goja.PromiseStatePending
}

// watch judges a run by its promise: settling within CallTimeout clears the strikes,
// settling later strikes, and a promise still pending after CallTimeout strikes when the
// callback next runs (judgeOverdue). Lock held.
func (s *striker) watch(v goja.Value) {
	if len(s.runs) >= maxWatchedRuns {
		return
	}
	then, err := s.r.then()
	if err != nil {
		return
	}
	run := &watchedRun{start: time.Now()}
	settled := s.r.rt.ToValue(func(goja.FunctionCall) goja.Value {
		s.settled(run)
		return goja.Undefined()
	})
	if _, err := then(v, settled, settled); err != nil {
		return
	}
	s.runs = append(s.runs, run)
}

// settled judges run when its promise settles. Lock held.
func (s *striker) settled(run *watchedRun) {
	if run.judged {
		return
	}
	s.forget(run)
	if time.Since(run.start) > s.r.engine.timeouts.Call {
		s.strike(strikeUnsettled)
		return
	}
	s.strikes, s.reasons = 0, 0
}

// judgeOverdue strikes every watched run whose promise is still pending after CallTimeout:
// whoever waited for it has given up by now. Lock held.
func (s *striker) judgeOverdue() {
	limit := s.r.engine.timeouts.Call
	for len(s.runs) > 0 && !s.out {
		run := s.runs[0]
		if time.Since(run.start) <= limit {
			return
		}
		s.forget(run)
		s.strike(strikeUnsettled)
	}
}

func (s *striker) forget(run *watchedRun) {
	run.judged = true
	if i := slices.Index(s.runs, run); i >= 0 {
		s.runs = slices.Delete(s.runs, i, i+1)
	}
}

// strike counts one strike; the last one removes the callback and reports it. Lock held.
func (s *striker) strike(reason int) {
	if s.out {
		return
	}
	s.strikes++
	s.reasons |= reason
	if s.strikes < maxStrikes {
		return
	}
	s.out = true
	s.runs = nil
	s.off()
	r := s.r
	msg := fmt.Sprintf("sandbox: %s %s %d times in a row and was %s", s.what, strikeReason(s.reasons, r.engine.timeouts.Call), maxStrikes, s.removed)
	r.logger.Warn(msg)
	if h := r.engine.onError; h != nil {
		h(r.id, errors.New(r.id+": "+strings.TrimPrefix(msg, "sandbox: ")))
	}
}

func strikeReason(reasons int, limit time.Duration) string {
	if reasons&strikeAlloc != 0 {
		return allocStrikeReason(reasons, limit, false)
	}
	switch reasons {
	case strikeTimeout:
		return fmt.Sprintf("ran longer than CallTimeout (%v)", limit)
	case strikeMost:
		return fmt.Sprintf("used more than half of CallTimeout (%v)", limit)
	case strikeUnsettled:
		return fmt.Sprintf("returned a promise that did not settle within CallTimeout (%v)", limit)
	}
	return fmt.Sprintf("used more than half of CallTimeout (%v) or did not finish within it", limit)
}

// timedOut reports whether err is the interrupt of entry e by its own time bound. Lock held.
func (r *Realm) timedOut(e *entry, err error) bool {
	// gojaErr, not errors.As: unwrapping a raw *goja.Exception walks the thrown value's
	// prototypes, which runs a Proxy's traps (mount code) while the error is handled.
	ie, ok := gojaErr(err).(*goja.InterruptedError)
	if e == nil || !ok || ie.Value() != any(e) {
		return false
	}
	byBound, _ := e.Expiry()
	return byBound
}

// A toolStriker counts the strikes of one registered tool (ctx.tools.register, and so
// harness.registerTool). A call strikes when its execute ran into CallTimeout, used more
// than half of it under the lock, or returned a promise that did not settle within it —
// a tool called back to back that way holds the one lock every mount waits for. After
// maxStrikes calls in a row the tool is struck out: it stays registered, so that a model
// calling it learns why, but refuses every call without taking the lock. A call that
// returns within half its bound clears the strikes; one its caller cancelled earlier
// neither strikes nor clears. Calls run concurrently, so the fields are guarded by mu;
// the sandbox's lock, when held, is taken first.
type toolStriker struct {
	r       *Realm
	name    string
	mu      sync.Mutex
	strikes int
	reasons int
	out     bool
}

// A toolRun is what the striker saw of one call.
type toolRun struct {
	used      time.Duration // the run's time, less the time excused (preciseUsed)
	timedOut  bool          // interrupted by its own CallTimeout
	overAlloc bool          // stopped by its allocation budget
	pending   bool          // returned a promise still pending
	refused   bool          // the tool was struck out before the call ran
	struckOut bool          // this call's strike struck the tool out
}

// wrap returns exec measuring one call into run: a struck-out tool's execute no longer
// runs, even for a call that was already waiting for the lock when the tool was struck
// out. A strike judged while the lock is held takes effect before any other call runs.
// Lock held when the result runs.
func (s *toolStriker) wrap(exec goja.Callable, run *toolRun) goja.Callable {
	return func(this goja.Value, args ...goja.Value) (goja.Value, error) {
		r := s.r
		if s.isOut() {
			run.refused = true
			return nil, s.refusal()
		}
		cur := r.engine.lock.Current() // the entry delivering this call
		start := time.Now()
		v, err := exec(this, args...)
		if cur != nil {
			run.used = preciseUsed(r.engine.lock.Elapsed(cur), start)
		}
		run.timedOut = err != nil && r.timedOut(cur, err)
		run.overAlloc = err != nil && r.overAlloc(cur, err)
		run.pending = err == nil && isPending(v)
		limit := r.engine.timeouts.Call
		switch {
		case run.timedOut:
			run.struckOut = s.strike(strikeTimeout)
		case run.overAlloc:
			run.struckOut = s.strike(strikeAlloc)
		case run.used > limit/2:
			run.struckOut = s.strike(strikeMost)
		}
		return v, err
	}
}

// judge finishes a call the wrapper measured, whose delivery ended with err, and returns
// the error for the model: a call that struck the tool out says so (and what to do), with
// its own error, if any. Called without the lock.
func (s *toolStriker) judge(ctx context.Context, run *toolRun, err error) error {
	if run.refused {
		return err
	}
	var te *TimeoutError
	switch {
	case run.struckOut, run.timedOut, run.overAlloc, run.used > s.r.engine.timeouts.Call/2:
		// judged in the wrapper, under the lock
	case run.pending && errors.As(err, &te) && te.Bound == "CallTimeout":
		run.struckOut = s.strike(strikeUnsettled)
	case ctx.Err() != nil:
		// the caller gave up early: no evidence either way
	default:
		s.clear()
	}
	if !run.struckOut {
		return err
	}
	if err != nil {
		return fmt.Errorf("%w (this call: %w)", s.refusal(), err)
	}
	return fmt.Errorf("%w (this call's result is discarded)", s.refusal())
}

func (s *toolStriker) isOut() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out
}

func (s *toolStriker) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.strikes, s.reasons = 0, 0
}

// strike counts one strike and reports whether it struck the tool out; it logs and passes
// to Options.OnError the removal when it does.
func (s *toolStriker) strike(reason int) bool {
	s.mu.Lock()
	if s.out {
		s.mu.Unlock()
		return false
	}
	s.strikes++
	s.reasons |= reason
	if s.strikes < maxStrikes {
		s.mu.Unlock()
		return false
	}
	s.out = true
	s.mu.Unlock()
	r := s.r
	err := s.refusal()
	r.logger.Warn("sandbox: " + err.Error())
	if h := r.engine.onError; h != nil {
		h(r.id, fmt.Errorf("%s: %w", r.id, err))
	}
	return true
}

// refusal is the error of a struck-out tool: what happened and what to do, for the model
// that calls it.
func (s *toolStriker) refusal() error {
	s.mu.Lock()
	reasons := s.reasons
	s.mu.Unlock()
	return &StruckOutError{Tool: s.name, Mount: s.r.id, Strikes: maxStrikes, Reason: toolStrikeReason(reasons, s.r.engine.timeouts.Call)}
}

// A StruckOutError is the error of every call of a tool struck out for keeping its
// calls at (or near) their time bound, CallTimeout: its execute no longer runs. The tool
// stays registered until its mount goes away, so that the model calling it reads why.
type StruckOutError struct {
	Tool    string // the tool's name
	Mount   string // the mount that registered it: "dyn-3"
	Strikes int    // the calls in a row that struck it out
	Reason  string // what those calls did: "used more than half of their 500ms bound (CallTimeout)"
}

func (e *StruckOutError) Error() string {
	return fmt.Sprintf("tool %q was struck out: %d calls in a row %s, and while one runs the JavaScript of every other mount waits; "+
		"it refuses calls until its plugin is unmounted. Make execute return sooner — do less per call (split the work or page the result), "+
		"or await between parts (await ctx.sleep(0), with inject: ['timer']) so others run — then unmount plugin %s and mount the fixed code",
		e.Tool, e.Strikes, e.Reason, e.Mount)
}

func toolStrikeReason(reasons int, limit time.Duration) string {
	if reasons&strikeAlloc != 0 {
		return allocStrikeReason(reasons, limit, true)
	}
	switch reasons {
	case strikeTimeout:
		return fmt.Sprintf("ran to their %v bound (CallTimeout) and were interrupted", limit)
	case strikeMost:
		return fmt.Sprintf("used more than half of their %v bound (CallTimeout)", limit)
	case strikeUnsettled:
		return fmt.Sprintf("returned a promise that did not settle within their %v bound (CallTimeout)", limit)
	}
	return fmt.Sprintf("used more than half of their %v bound (CallTimeout) or did not finish within it", limit)
}

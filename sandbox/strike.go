package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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
)

// A striker counts the strikes of one listener or timer callback and removes it (off) after
// maxStrikes in a row. All fields are guarded by the sandbox's lock: the callback, and the
// handlers that watch its promises, run only under it.
type striker struct {
	r       *Realm
	what    string // "the listener of \"tools/change\"", "the ctx.setInterval callback"
	removed string // "removed", "cancelled"
	off     func()
	share   *timerShare // if set, records the time each run used
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
		s.judgeOverdue()
		if s.out {
			return goja.Undefined(), nil
		}
		cur := r.loop.lock.Current() // the entry delivering this call
		v, err := fn(this, args...)
		var used time.Duration
		if cur != nil {
			used = r.loop.lock.Elapsed(cur) // less the time other mounts' calls ran inline
		}
		if s.share != nil {
			s.share.add(used, r.loop.shareWindow())
		}
		limit := r.loop.timeouts.Call
		switch {
		case err != nil && r.timedOut(cur, err):
			s.strike(strikeTimeout)
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
	if time.Since(run.start) > s.r.loop.timeouts.Call {
		s.strike(strikeUnsettled)
		return
	}
	s.strikes, s.reasons = 0, 0
}

// judgeOverdue strikes every watched run whose promise is still pending after CallTimeout:
// whoever waited for it has given up by now. Lock held.
func (s *striker) judgeOverdue() {
	limit := s.r.loop.timeouts.Call
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
	msg := fmt.Sprintf("sandbox: %s %s %d times in a row and was %s", s.what, strikeReason(s.reasons, r.loop.timeouts.Call), maxStrikes, s.removed)
	r.logger.Warn(msg)
	if h := r.loop.onError; h != nil {
		h(r.id, errors.New(r.id+": "+strings.TrimPrefix(msg, "sandbox: ")))
	}
}

func strikeReason(reasons int, limit time.Duration) string {
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

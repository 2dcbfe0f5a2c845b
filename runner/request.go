package runner

import (
	"context"
	"fmt"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"time"
)

// A request is a pending run request (approval-N): a model's run of a gated Package,
// waiting for a page (and possibly a person). At most one per Plugin. Its ticket, sent
// only in the cordis/request-run event, authorises starting or declining it; once a page
// starts it, only that page's token settles it.
type request struct {
	id, ticket       string
	pluginID         string
	session          string
	runID, pkg       string
	mode             dynamic.Mode
	requiresApproval bool
	hasClient        bool

	started bool          // a page called runHostHalf for it
	token   string        // that page's answer token
	timer   Timer         // on Options.Clock
	waited  time.Duration // the bound the timer enforces
}

// admitRequest refuses a new run request of session once it has
// Options.MaxPendingRequestsPerSession waiting. Only a model's requests count (and are
// refused): a person's direct run from the panel waits for its page without an id and is
// never refused. The caller holds r.mu from this count until it sets the request, so
// concurrent runs cannot together go past the cap. The count walks the live entries
// (Plugins with something live, of every session). r.mu held.
func (r *Runner) admitRequest(session string) error {
	n := 0
	for _, l := range r.live {
		if q := l.req; q != nil && q.id != "" && q.session == session {
			n++
		}
	}
	if n >= r.opts.MaxPendingRequestsPerSession {
		return refuse(ReasonLimit, "this session has %d run requests waiting for the Cordis panel, the most it may have (runner.Options.MaxPendingRequestsPerSession); wait for their outcomes (each arrives as a message), or cordis_stop a Plugin whose request you no longer need, then cordis_run again", n)
	}
	return nil
}

// arm (re)starts the request's deadline on Options.Clock. r.mu held.
func (r *Runner) arm(q *request, d time.Duration) {
	q.stopTimer(r)
	q.waited = d
	r.timers.Add(1)
	q.timer = r.opts.Clock.AfterFunc(d, func() {
		defer r.timers.Done()
		r.expire(q)
	})
}

// stopTimer stops the deadline. A callback already running finishes on its own (and finds
// the request settled). r.mu held.
func (q *request) stopTimer(r *Runner) {
	if q.timer != nil && q.timer.Stop() {
		r.timers.Done()
	}
	q.timer = nil
}

// claim removes q as Plugin id's pending request if it still is: the primitive that lets
// exactly one answer settle it. r.mu held.
func (r *Runner) claim(q *request) bool {
	l := r.live[q.pluginID]
	if r.closed || l == nil || l.req != q {
		return false
	}
	l.req = nil
	q.stopTimer(r)
	return true
}

// resolved queues the cordis/request-run-resolved event of q.
func (r *Runner) resolved(ob *outbox, q *request, o Outcome) {
	ob.add(func() {
		RequestRunResolved.Emit(r.ctx(), RequestRunResolvedEvent{RequestID: q.id, PluginID: q.pluginID, Outcome: o})
	})
}

// steer queues a steer message to q's session.
func (r *Runner) steer(ob *outbox, session, pluginID, text string) {
	ob.add(func() { r.message(session, dynamic.MessageSteer, pluginID, text) })
}

// expire ends a request nobody settled in time: before a page started it (no page, or
// nobody approved) or after (the page that started it never reported its client half).
func (r *Runner) expire(q *request) {
	var ob outbox
	defer ob.flush()
	r.mu.Lock()
	if !r.claim(q) {
		r.mu.Unlock()
		return
	}
	ctx := context.Background()
	l := r.live[q.pluginID]
	var stale *liveRun
	if l.start != nil && l.start.runID == q.runID {
		l.start.stop() // it will not install the run
	}
	if l.run != nil && l.run.id == q.runID {
		stale = l.detach()
	}
	var text string
	if !q.started {
		text = fmt.Sprintf("nobody started it within %s: no page of the Cordis panel is open, or the user did not answer. Nothing was started", q.waited)
	} else {
		text = fmt.Sprintf("the page that started it did not report its client half within %s; the run was stopped", q.waited)
	}
	what := "run request " + q.id
	if q.id == "" {
		what = "the direct run " + q.runID + " from the Cordis panel"
	}
	p, err := r.updateAttempt(ctx, q.pluginID, q.runID, Change{}, func(a *dynamic.Attempt) {
		a.Status = dynamic.RunExpired
		a.Error = &dynamic.Diagnostic{Phase: dynamic.PhaseApproval, Message: what + " expired: " + text, PluginID: q.pluginID, PackageID: q.pkg, PluginRunID: q.runID}
		if a.Client.Status == dynamic.HalfPending {
			a.Client.Status = dynamic.HalfStopped
		}
		if stale != nil && a.Host.Status != dynamic.HalfAbsent {
			a.Host.Status = dynamic.HalfStopped
		}
	})
	r.tidy(q.pluginID)
	r.mu.Unlock()
	if stale != nil {
		sctx, cancel := r.stopCtx()
		r.stopRun(sctx, q.pluginID, stale)
		cancel()
	}
	if q.id == "" {
		// A direct run from the panel: no run request was announced, so none resolves, and
		// the model is told what the person's run came to.
		if err == nil {
			r.inject(&ob, p, fmt.Sprintf("The user ran %s/%s (%s) from the Cordis panel, and it expired: %s. currentPackageId is %s.", q.pluginID, q.pkg, q.runID, text, orNone(p.Current)))
		}
		return
	}
	r.resolved(&ob, q, OutcomeExpired)
	if err == nil {
		r.steer(&ob, q.session, q.pluginID, fmt.Sprintf("Cordis %s request %s for %s/%s (%s) expired: %s. currentPackageId is %s. Ask the user to open the Cordis panel, then call cordis_run again.",
			q.mode, q.id, q.pluginID, q.pkg, q.runID, text, orNone(p.Current)))
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

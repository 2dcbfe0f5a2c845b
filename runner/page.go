package runner

import (
	"context"
	"fmt"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The page-facing verbs (docs/dynamic-plugins.md, "Verbs") that start a run. What a page
// sends and gets back, and the secrets that authorise it, are the page protocol's
// (runner/page); the state machine that answers is here: a pending request (request.go)
// approved and started, or a direct gesture in the panel.

// RunHostHalf starts (or attaches to) the host half of a run for a page: for a pending
// request (approving it when it needs approval) or as a direct gesture in the panel.
func (r *Runner) RunHostHalf(ctx context.Context, a page.RunHostHalfArgs) page.HostHalfResult {
	p, k, err := r.plan(ctx, a.Session, a.PluginID, a.PackageID, a.Mode)
	if err != nil {
		return page.HostHalfFailed(err)
	}
	if a.RequestID != "" {
		return r.runForRequest(ctx, p, k, a)
	}
	return r.runDirect(ctx, p, k)
}

// runForRequest is runHostHalf for request a.RequestID.
func (r *Runner) runForRequest(ctx context.Context, p Plugin, k Package, a page.RunHostHalfArgs) page.HostHalfResult {
	if err := r.lock(); err != nil {
		return page.HostHalfFailed(err)
	}
	l := r.liveOf(p.ID)
	q := l.req
	switch {
	case q == nil || q.id != a.RequestID || q.pkg != k.ID || q.mode != a.Mode:
		r.tidy(p.ID)
		r.mu.Unlock()
		return page.HostHalfFailed(refuse(ReasonNotAuthorised, "request %s does not authorise %s/%s in mode %q: it was answered, cancelled or expired, or names another Package; reload the panel", a.RequestID, p.ID, k.ID, a.Mode))
	case !page.SameSecret(a.Ticket, q.ticket):
		r.mu.Unlock()
		return page.HostHalfFailed(refuse(ReasonNotAuthorised, "runHostHalf: the ticket does not match request %s; pass the ticket of its cordis/request-run event", q.id))
	case p.Latest == nil || p.Latest.PluginRunID != q.runID:
		r.mu.Unlock()
		return page.HostHalfFailed(refuse(ReasonNotAuthorised, "request %s no longer identifies the latest run of %s", q.id, p.ID))
	}
	att := cloneAttempt(p.Latest)
	if q.started {
		// Another page started it: attach (never a spurious failure: docs/dynamic-plugins.md,
		// "Races: the first answer wins").
		r.mu.Unlock()
		return attached(p, k, r.activate(ctx, p, k, att, "", q.id))
	}
	q.started, q.token = true, secret()
	c := Change{}
	if q.requiresApproval {
		c.Grant = k.ID
		if a.ApproveFutureVersions {
			c.Future = ptr(true)
		}
	}
	att.Status = dynamic.RunStartingHost
	c.Attempt = att
	if _, err := r.store.Update(ctx, p.ID, c); err != nil {
		q.started, q.token = false, ""
		r.mu.Unlock()
		return page.HostHalfFailed(err)
	}
	r.arm(q, r.opts.ClientTimeout)
	r.mu.Unlock()
	return r.afterRequestStart(ctx, p, k, q, r.activate(ctx, p, k, att, q.token, q.id))
}

// afterRequestStart records the start of q's host half and answers the page.
func (r *Runner) afterRequestStart(ctx context.Context, p Plugin, k Package, q *request, res startResult) page.HostHalfResult {
	var ob outbox
	defer ob.flush()
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.liveOf(p.ID)
	if res.err != nil {
		if r.claim(q) {
			r.failStart(ctx, p.ID, q.runID, res)
			r.resolved(&ob, q, OutcomeFailed)
			r.steer(&ob, q.session, p.ID, requestFailedText(q, p, ReasonHostHalfFailed, res.err.Message, res.err.Stack))
		}
		r.tidy(p.ID)
		return page.HostHalfFailed(res.err)
	}
	if l.req != q || l.run != res.run {
		// Cancelled or expired while starting: whoever ended it retracts the run.
		return page.HostHalfFailed(refuse(ReasonCancelled, "request %s ended while its host half was starting (stopped, removed or expired); nothing of it runs", q.id))
	}
	_, _ = r.updateAttempt(ctx, p.ID, q.runID, Change{}, func(a *dynamic.Attempt) {
		hostStarted(a, res)
		if a.Client.Status != dynamic.HalfAbsent {
			a.Status = dynamic.RunClientPending
		}
	})
	ok := page.HostHalfResult{OK: true, PluginID: p.ID, PackageID: k.ID, PluginRunID: q.runID, WaitingFor: nonNil(res.waitingFor),
		StartedHere: true, Token: q.token, Capability: res.run.capability}
	if !k.HasClient() {
		// A gated host-only Package: the page's approval was all it waited for.
		r.claim(q)
		if cur, err := r.commit(ctx, p.ID, res.run, nil); err == nil {
			r.resolved(&ob, q, approvedOutcome(q))
			r.steer(&ob, q.session, p.ID, requestDoneText(q, cur))
		}
	}
	return ok
}

// attached answers a page that joined a run another page started.
func attached(p Plugin, k Package, res startResult) page.HostHalfResult {
	if res.err != nil {
		return page.HostHalfFailed(res.err)
	}
	return page.HostHalfResult{OK: true, PluginID: p.ID, PackageID: k.ID, PluginRunID: res.run.id, WaitingFor: nonNil(res.waitingFor), Capability: res.run.capability}
}

// runDirect is runHostHalf for a direct gesture: the person ran the Package from the panel,
// which grants it.
func (r *Runner) runDirect(ctx context.Context, p Plugin, k Package) page.HostHalfResult {
	if err := r.lock(); err != nil {
		return page.HostHalfFailed(err)
	}
	l := r.liveOf(p.ID)
	if l.req != nil {
		q := l.req
		r.mu.Unlock()
		if q.id != "" {
			return page.HostHalfFailed(refuse(ReasonTransitionInFlight, "%s has a pending run request %s; approve or decline it instead of starting the Plugin directly", p.ID, q.id))
		}
		return page.HostHalfFailed(pendingRefusal(p.ID, q))
	}
	if a := l.start; a != nil {
		r.mu.Unlock()
		if a.pkg != k.ID {
			return page.HostHalfFailed(inFlight(p.ID, a))
		}
		return attached(p, k, r.activate(ctx, p, k, &dynamic.Attempt{PluginRunID: a.runID, PackageID: k.ID}, "", ""))
	}
	if run := l.run; run != nil && run.pkg == k.ID && p.Latest != nil && p.Latest.PluginRunID == run.id {
		r.mu.Unlock()
		return page.HostHalfResult{OK: true, PluginID: p.ID, PackageID: k.ID, PluginRunID: run.id, WaitingFor: waitingFor(run), Capability: run.capability}
	}
	runID, err := r.store.Mint(ctx, CounterRun)
	if err != nil {
		r.tidy(p.ID)
		r.mu.Unlock()
		return page.HostHalfFailed(err)
	}
	att := newAttempt(runID, k, dynamic.ModeRun)
	if p.Current != "" && p.Current != k.ID {
		att.Mode = dynamic.ModeUpdate
	}
	if _, err := r.store.Update(ctx, p.ID, Change{Attempt: att, Next: ptr(k.ID), Grant: k.ID}); err != nil {
		r.tidy(p.ID)
		r.mu.Unlock()
		return page.HostHalfFailed(err)
	}
	token := secret()
	var q *request
	if k.HasClient() {
		// The page's wait for its client half has a deadline too.
		q = &request{ticket: secret(), pluginID: p.ID, session: p.Session, runID: runID, pkg: k.ID, mode: att.Mode, hasClient: true, started: true, token: token}
		l.req = q
		r.arm(q, r.opts.ClientTimeout)
	}
	r.mu.Unlock()
	res := r.activate(ctx, p, k, att, token, "")
	return r.afterDirectStart(ctx, p, k, att, q, token, res)
}

// afterDirectStart records a direct start and answers the page.
func (r *Runner) afterDirectStart(ctx context.Context, p Plugin, k Package, att *dynamic.Attempt, q *request, token string, res startResult) page.HostHalfResult {
	var ob outbox
	defer ob.flush()
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.liveOf(p.ID)
	if q != nil && !r.claim(q) && res.err == nil {
		return page.HostHalfFailed(refuse(ReasonCancelled, "%s/%s (%s) was stopped while it started; nothing of it runs", p.ID, k.ID, att.PluginRunID))
	}
	if res.err != nil {
		r.failStart(ctx, p.ID, att.PluginRunID, res)
		r.tidy(p.ID)
		r.inject(&ob, p, fmt.Sprintf("The user ran %s/%s (%s) from the Cordis panel, and its host half failed: %s", p.ID, k.ID, att.PluginRunID, res.err.Message))
		return page.HostHalfFailed(res.err)
	}
	if l.run != res.run {
		return page.HostHalfFailed(refuse(ReasonCancelled, "%s/%s (%s) was stopped while it started; nothing of it runs", p.ID, k.ID, att.PluginRunID))
	}
	_, _ = r.updateAttempt(ctx, p.ID, att.PluginRunID, Change{}, func(a *dynamic.Attempt) {
		hostStarted(a, res)
		if a.Client.Status != dynamic.HalfAbsent {
			a.Status = dynamic.RunClientPending
		}
	})
	if q != nil {
		l.req = q // the page's wait for its client half goes on
		r.arm(q, r.opts.ClientTimeout)
	} else if cur, err := r.commit(ctx, p.ID, res.run, nil); err == nil {
		r.inject(&ob, p, fmt.Sprintf("The user ran %s/%s (%s) from the Cordis panel; it is running. currentPackageId is %s.", p.ID, k.ID, att.PluginRunID, cur.Current))
	}
	return page.HostHalfResult{OK: true, PluginID: p.ID, PackageID: k.ID, PluginRunID: att.PluginRunID, WaitingFor: nonNil(res.waitingFor), StartedHere: true, Token: token, Capability: res.run.capability}
}

// inject queues an inject message to p's owner.
func (r *Runner) inject(ob *outbox, p Plugin, text string) {
	ob.add(func() { r.message(p.Session, dynamic.MessageInject, p.ID, text) })
}

func approvedOutcome(q *request) Outcome {
	if q.requiresApproval {
		return OutcomeApproved
	}
	return OutcomeCompleted
}

func requestDoneText(q *request, p Plugin) string {
	return fmt.Sprintf("Cordis %s of %s/%s (%s) completed; currentPackageId is %s. Continue using it.", q.mode, q.pluginID, q.pkg, q.runID, orNone(p.Current))
}

func requestFailedText(q *request, p Plugin, reason Reason, msg, stack string) string {
	t := fmt.Sprintf("Cordis %s of %s/%s (%s) failed after cordis_run returned: %s: %s", q.mode, q.pluginID, q.pkg, q.runID, reason, msg)
	if stack != "" {
		t += "\n" + stack
	}
	return t + fmt.Sprintf("\ncurrentPackageId is %s, nextPackageId is %s. Inspect it with cordis_inspect_self {pluginId:%q, packageId:%q}, fix the same Plugin with cordis_define plugin:{kind:\"existing\", pluginId:%q}, and cordis_run again.",
		orNone(p.Current), orNone(q.pkg), q.pluginID, q.pkg, q.pluginID)
}

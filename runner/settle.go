package runner

import (
	"context"
	"fmt"
	"slices"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// GetClientCode returns the client half of the live run a.PluginRunID.
func (r *Runner) GetClientCode(ctx context.Context, a page.ClientCodeArgs) (page.ClientCode, error) {
	p, err := r.owned(ctx, a.Session, a.PluginID)
	if err != nil {
		return page.ClientCode{}, err
	}
	r.mu.Lock()
	var run *liveRun
	if l := r.live[p.ID]; l != nil {
		run = l.run
	}
	r.mu.Unlock()
	if run == nil || run.id != a.PluginRunID {
		return page.ClientCode{}, refuse(ReasonNotRunning, "%s is not running activation %s; reload the panel to see its live run", p.ID, a.PluginRunID)
	}
	k, _ := p.Package(run.pkg)
	if !k.HasClient() {
		return page.ClientCode{}, refuse(ReasonInvalid, "package %s of %s has no client half", k.ID, p.ID)
	}
	return page.ClientCode{Code: k.Client, Name: k.Name, PluginID: p.ID, PackageID: k.ID, PluginRunID: run.id, Capability: run.capability}, nil
}

// Accepted is the answer of resolveRequestRun and settleUserRun (page.Accepted); Message
// says why an answer was refused.
type Accepted = page.Accepted

// ResolveRequestRun settles a pending run request with a page's answer. A decline is
// accepted from a page holding the request's ticket while nobody has started it; any
// other answer only from the page that started it (its token) and for its run. The first
// accepted answer wins; a refused one changes nothing.
func (r *Runner) ResolveRequestRun(ctx context.Context, a page.ResolveArgs) Accepted {
	var ob outbox
	defer ob.flush()
	r.mu.Lock()
	q := r.findRequest(a.RequestID)
	res := a.Resolution
	var stale *liveRun
	var acc Accepted
	switch {
	case q == nil:
		acc.Message = fmt.Sprintf("request %s is not pending: it was answered, cancelled or expired", a.RequestID)
	case res.Reason == ReasonRejected && !res.OK:
		acc = r.decline(ctx, &ob, q, a.Ticket)
	case !page.SameSecret(res.Token, q.token):
		acc.Message = fmt.Sprintf("only the page that started request %s (the token its runHostHalf returned) can settle it", q.id)
	case res.PluginRunID != q.runID:
		acc.Message = fmt.Sprintf("request %s is for run %s, not %q", q.id, q.runID, res.PluginRunID)
	default:
		stale, acc = r.settle(ctx, &ob, q, res)
	}
	r.mu.Unlock()
	if stale != nil {
		r.stopRun(ctx, q.pluginID, stale)
	}
	return acc
}

// findRequest returns the pending request with id. r.mu held.
func (r *Runner) findRequest(id string) *request {
	if id == "" {
		return nil
	}
	for _, l := range r.live {
		if l.req != nil && l.req.id == id {
			return l.req
		}
	}
	return nil
}

// decline settles q as rejected. r.mu held.
func (r *Runner) decline(ctx context.Context, ob *outbox, q *request, ticket string) Accepted {
	switch {
	case !page.SameSecret(ticket, q.ticket):
		return Accepted{Message: fmt.Sprintf("a decline of request %s needs the ticket of its cordis/request-run event", q.id)}
	case q.started:
		return Accepted{Message: fmt.Sprintf("request %s was already started by a page; stop the Plugin instead", q.id)}
	case !r.claim(q):
		return Accepted{Message: fmt.Sprintf("request %s is not pending", q.id)}
	}
	p, _ := r.updateAttempt(ctx, q.pluginID, q.runID, Change{}, func(a *dynamic.Attempt) {
		a.Status = dynamic.RunRejected
		a.Error = &dynamic.Diagnostic{Phase: dynamic.PhaseApproval, Message: "the user declined run request " + q.id, PluginID: q.pluginID, PackageID: q.pkg, PluginRunID: q.runID}
		if a.Client.Status != dynamic.HalfAbsent {
			a.Client.Status = dynamic.HalfStopped
		}
	})
	r.tidy(q.pluginID)
	r.resolved(ob, q, OutcomeRejected)
	r.steer(ob, q.session, q.pluginID, fmt.Sprintf("The user rejected the Cordis %s of %s/%s (%s). Do not request it again unless the user asks; currentPackageId is %s.", q.mode, q.pluginID, q.pkg, q.runID, orNone(p.Current)))
	return Accepted{Accepted: true}
}

// settle applies the starting page's answer to q: commit on success, retract on failure.
// It returns the run to stop once r.mu is released. r.mu held.
func (r *Runner) settle(ctx context.Context, ob *outbox, q *request, res page.Resolution) (*liveRun, Accepted) {
	l := r.live[q.pluginID]
	if l.run == nil || l.run.id != q.runID {
		return nil, Accepted{Message: fmt.Sprintf("run %s of request %s is not live", q.runID, q.id)}
	}
	r.claim(q)
	if res.OK {
		p, err := r.commit(ctx, q.pluginID, l.run, func(a *dynamic.Attempt) {
			a.Client = dynamic.Half{Status: dynamic.HalfRunning, WaitingFor: nonNil(res.WaitingFor)}
			if len(res.WaitingFor) > 0 {
				a.Client.Status = dynamic.HalfWaiting
			}
		})
		if err != nil {
			return nil, Accepted{Message: err.Error()}
		}
		if q.id != "" {
			r.resolved(ob, q, approvedOutcome(q))
			r.steer(ob, q.session, q.pluginID, requestDoneText(q, p))
		} else {
			r.inject(ob, p, fmt.Sprintf("The user ran %s/%s (%s) from the Cordis panel; it is running. currentPackageId is %s.", q.pluginID, q.pkg, q.runID, p.Current))
		}
		return nil, Accepted{Accepted: true}
	}
	// The page that started the run failed: it owns the run, so the run goes.
	stale := l.detach()
	reason, phase := ReasonClientHalfFailed, dynamic.PhaseClientApply
	if res.Reason == ReasonHostHalfFailed {
		reason, phase = ReasonHostHalfFailed, dynamic.PhaseHostApply
	}
	msg := res.Message
	if msg == "" {
		msg = string(reason)
	}
	p, _ := r.updateAttempt(ctx, q.pluginID, q.runID, Change{}, failAttempt(q.pluginID, phase, &Error{Message: msg, Stack: res.Stack}))
	r.tidy(q.pluginID)
	if q.id != "" {
		r.resolved(ob, q, OutcomeFailed)
		r.steer(ob, q.session, q.pluginID, requestFailedText(q, p, reason, msg, res.Stack))
	} else {
		r.inject(ob, p, fmt.Sprintf("The user ran %s/%s (%s) from the Cordis panel, and it failed: %s: %s. currentPackageId is %s.", q.pluginID, q.pkg, q.runID, reason, msg, orNone(p.Current)))
	}
	return stale, Accepted{Accepted: true}
}

// SettleUserRun settles a direct run from the panel with the answer of the page that
// started it (its token), and tells the owning session's model.
func (r *Runner) SettleUserRun(ctx context.Context, a page.SettleUserRunArgs) Accepted {
	if _, err := r.owned(ctx, a.Session, a.PluginID); err != nil {
		return Accepted{Message: err.Error()}
	}
	var ob outbox
	defer ob.flush()
	r.mu.Lock()
	var q *request
	if l := r.live[a.PluginID]; l != nil && l.req != nil && l.req.id == "" {
		q = l.req
	}
	res := a.Resolution
	var stale *liveRun
	var acc Accepted
	switch {
	case q == nil:
		acc.Message = fmt.Sprintf("%s has no direct run waiting for its page", a.PluginID)
	case !page.SameSecret(res.Token, q.token) || res.PluginRunID != q.runID:
		acc.Message = fmt.Sprintf("only the page that started run %s of %s (the token its runHostHalf returned) can settle it", q.runID, a.PluginID)
	default:
		stale, acc = r.settle(ctx, &ob, q, res)
	}
	r.mu.Unlock()
	if stale != nil {
		r.stopRun(ctx, a.PluginID, stale)
	}
	return acc
}

// StopFromPanel is Stop for a person in the panel; the owning session's model is told.
func (r *Runner) StopFromPanel(ctx context.Context, a page.PanelPluginArgs) error {
	_, err := r.stop(ctx, a.Session, a.PluginID, false)
	if err != nil && ReasonOf(err) != ReasonNotRunning {
		return err
	}
	p, perr := r.store.Plugin(ctx, a.PluginID)
	if perr == nil {
		r.message(a.Session, dynamic.MessageInject, a.PluginID, fmt.Sprintf("The user stopped %s from the Cordis panel; its Packages remain. currentPackageId is %s.", a.PluginID, orNone(p.Current)))
	}
	return nil
}

// UndefineFromPanel is Undefine for a person in the panel; the owning session's model is
// told.
func (r *Runner) UndefineFromPanel(ctx context.Context, a page.PanelPluginArgs) (dynamic.UndefineOutput, error) {
	was, err := r.stop(ctx, a.Session, a.PluginID, true)
	if err != nil && ReasonOf(err) != ReasonNotRunning {
		return dynamic.UndefineOutput{}, err
	}
	r.message(a.Session, dynamic.MessageInject, a.PluginID, fmt.Sprintf("The user removed %s and all of its Packages from the Cordis panel; it no longer exists.", a.PluginID))
	return dynamic.UndefineOutput{PluginID: a.PluginID, WasRunning: was}, nil
}

// RevokeGrant withdraws grants: the next run of a revoked Package waits for approval
// again. A live run keeps running (stop it to end it).
func (r *Runner) RevokeGrant(ctx context.Context, a page.RevokeArgs) (Grants, error) {
	p, err := r.owned(ctx, a.Session, a.PluginID)
	if err != nil {
		return Grants{}, err
	}
	if a.PackageID == "" && !a.Future {
		return p.Grants, refuse(ReasonInvalid, "revokeGrant: name a packageId, or set future to revoke the grant for future versions")
	}
	if a.PackageID != "" && !slices.Contains(p.Grants.Packages, a.PackageID) && !p.Grants.Future {
		return p.Grants, refuse(ReasonInvalid, "revokeGrant: %s has no grant for package %q", p.ID, a.PackageID)
	}
	c := Change{Revoke: a.PackageID}
	if a.Future {
		c.Future = ptr(false)
	}
	r.mu.Lock()
	q, err := r.store.Update(ctx, p.ID, c)
	r.mu.Unlock()
	return q.Grants, err
}

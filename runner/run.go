package runner

import (
	"context"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// Run starts Package in.PackageID of Plugin in.PluginID for the calling session (the model
// path; docs/dynamic-plugins.md, "cordis_run"). A host-only Package runs inside the call
// (unless Options. ApproveHostHalves and no grant: then like a client-bearing one); a
// Package with a client half becomes a run request that pages answer, and Run returns at
// once.
func (r *Runner) Run(ctx context.Context, in dynamic.RunInput) (dynamic.RunOutput, error) {
	session, err := r.session(ctx)
	if err != nil {
		return dynamic.RunOutput{}, err
	}
	p, k, err := r.plan(ctx, session, in.PluginID, in.PackageID, in.Mode)
	if err != nil {
		return dynamic.RunOutput{}, err
	}
	if err := ctx.Err(); err != nil {
		return dynamic.RunOutput{}, &Error{Reason: ReasonCancelled, Message: "cordis_run was cancelled before the activation started; nothing changed", Err: err}
	}
	if err := r.lock(); err != nil {
		return dynamic.RunOutput{}, err
	}
	if out, answered, err := r.busy(ctx, p, k, in.Mode); answered {
		return out, err
	}
	r.mu.Unlock()
	// The run id is minted without r.mu: a counter, no Plugin's state, so one session's
	// slow Mint holds up no other session. Another verb may have started p meanwhile:
	// look again.
	runID, err := r.store.Mint(ctx, CounterRun)
	if err != nil {
		return dynamic.RunOutput{}, err
	}
	if err := r.lock(); err != nil {
		return dynamic.RunOutput{}, err
	}
	if out, answered, err := r.busy(ctx, p, k, in.Mode); answered {
		return out, err
	}
	// The attempt's first Update stays under r.mu: it is a change of p, ordered with the
	// other verbs' changes of p (a stop, a page's run, a start's commit) by r.mu alone.
	att := newAttempt(runID, k, in.Mode)
	granted := p.Grants.Covers(k.ID)
	if !k.HasClient() && (!r.opts.ApproveHostHalves || granted) {
		_, err := r.store.Update(ctx, p.ID, Change{Attempt: att, Next: ptr(k.ID)})
		r.mu.Unlock()
		if err != nil {
			return dynamic.RunOutput{}, err
		}
		return r.finishHostOnly(ctx, p, k, att, r.activate(ctx, p, k, att, "", ""))
	}
	return r.request(ctx, session, p, k, att, !granted)
}

// busy answers a run of p's Package k while a start or a run request of p is in flight:
// it attaches to the same host-only Package's start, and refuses anything else. It reads
// the live entry without making one: the activation makes it (liveOf), so a run that
// never starts leaves none behind. r.mu held; released when it answers.
func (r *Runner) busy(ctx context.Context, p Plugin, k Package, mode dynamic.Mode) (dynamic.RunOutput, bool, error) {
	l := r.live[p.ID]
	if a := l.starting(); a != nil {
		r.mu.Unlock()
		if a.pkg != k.ID || k.HasClient() {
			return dynamic.RunOutput{}, true, inFlight(p.ID, a)
		}
		// The same host-only Package is starting already (a page's direct run): attach.
		att := &dynamic.Attempt{PluginRunID: a.runID, PackageID: k.ID, Mode: mode}
		out, err := r.finishHostOnly(ctx, p, k, att, r.activate(ctx, p, k, att, "", ""))
		return out, true, err
	}
	if q := l.request(); q != nil {
		r.mu.Unlock()
		return dynamic.RunOutput{}, true, pendingRefusal(p.ID, q)
	}
	return dynamic.RunOutput{}, false, nil
}

func pendingRefusal(id string, q *request) *Error {
	if q.id == "" {
		return refuse(ReasonTransitionInFlight, "%s is being loaded into a page of the Cordis panel (%s of %s, started by the user); wait for it to finish, or cordis_stop %s to cancel it", id, q.runID, q.pkg, id)
	}
	return refuse(ReasonTransitionInFlight, "%s already has a pending run request %s for %s (%s); wait for the outcome (it arrives as a message), or cordis_stop %s to cancel it", id, q.id, q.pkg, q.runID, id)
}

// plan resolves a run: ownership, the Package, and the mode rules
// (docs/dynamic-plugins.md, "cordis_run"), which do not depend on whether anything runs.
func (r *Runner) plan(ctx context.Context, session, pluginID, packageID string, mode dynamic.Mode) (Plugin, Package, error) {
	p, err := r.owned(ctx, session, pluginID)
	if err != nil {
		return p, Package{}, err
	}
	k, ok := p.Package(packageID)
	if !ok {
		return p, k, refuse(ReasonPackageMissing, "plugin %s has no package %q; its packages are listed by cordis_inspect_self {pluginId:%q}", p.ID, packageID, p.ID)
	}
	switch {
	case mode != dynamic.ModeRun && mode != dynamic.ModeUpdate:
		return p, k, refuse(ReasonInvalidMode, `mode must be "run" or "update"; got %q`, mode)
	case mode == dynamic.ModeUpdate && p.Current == "":
		return p, k, refuse(ReasonInvalidMode, `%s has no successful version yet, so there is nothing to update from; use mode "run" for its first activation`, p.ID)
	case mode == dynamic.ModeUpdate && p.Current == k.ID:
		return p, k, refuse(ReasonInvalidMode, `%s is already the current Package of %s; use mode "run" to restart it`, k.ID, p.ID)
	case mode == dynamic.ModeRun && p.Current != "" && p.Current != k.ID:
		return p, k, refuse(ReasonInvalidMode, `%s differs from the current Package %s of %s; use mode "update" to switch to it (mode "run" restarts, retries or rolls back to the current Package only)`, k.ID, p.Current, p.ID)
	}
	return p, k, nil
}

// finishHostOnly commits a run that needs no page, or records its failure.
func (r *Runner) finishHostOnly(ctx context.Context, p Plugin, k Package, att *dynamic.Attempt, res startResult) (dynamic.RunOutput, error) {
	q, err := r.commitHostOnly(ctx, p, k, att, res)
	if err != nil {
		return dynamic.RunOutput{}, err
	}
	return runOutput(ctx, q, att.PluginRunID, att.Mode, res.run), nil // enters JavaScript: not under r.mu
}

// commitHostOnly is finishHostOnly's bookkeeping, under r.mu.
func (r *Runner) commitHostOnly(ctx context.Context, p Plugin, k Package, att *dynamic.Attempt, res startResult) (Plugin, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if res.err != nil {
		r.failStart(ctx, p.ID, att.PluginRunID, res)
		return Plugin{}, res.err
	}
	l := r.live[p.ID]
	if l == nil || l.run != res.run {
		return Plugin{}, refuse(ReasonCancelled, "%s/%s (%s) was stopped before it finished starting; nothing of it runs", p.ID, k.ID, att.PluginRunID)
	}
	return r.commit(ctx, p.ID, res.run, func(a *dynamic.Attempt) { hostStarted(a, res) })
}

// request arms a run request for a gated Package and announces it. r.mu held; released.
func (r *Runner) request(ctx context.Context, session string, p Plugin, k Package, att *dynamic.Attempt, requiresApproval bool) (dynamic.RunOutput, error) {
	if err := r.admitRequest(session); err != nil {
		r.mu.Unlock()
		return dynamic.RunOutput{}, err
	}
	reqID, err := r.store.Mint(ctx, CounterApproval)
	if err != nil {
		r.tidy(p.ID)
		r.mu.Unlock()
		return dynamic.RunOutput{}, err
	}
	att.ApprovalRequestID, att.RequiresApproval = reqID, requiresApproval
	if requiresApproval {
		att.Status = dynamic.RunAwaitingApproval
	}
	q, err := r.store.Update(ctx, p.ID, Change{Attempt: att, Next: ptr(k.ID)})
	if err != nil {
		r.tidy(p.ID)
		r.mu.Unlock()
		return dynamic.RunOutput{}, err
	}
	rq := &request{id: reqID, ticket: secret(), pluginID: p.ID, session: session, runID: att.PluginRunID, pkg: k.ID,
		mode: att.Mode, requiresApproval: requiresApproval, hasClient: k.HasClient()}
	r.liveOf(p.ID).req = rq
	wait := r.opts.ApprovalTimeout
	if !requiresApproval {
		wait = r.opts.ClientTimeout
	}
	r.arm(rq, wait)
	r.mu.Unlock()
	RequestRun.Emit(r.ctx(), RequestRunEvent{RequestID: reqID, Ticket: rq.ticket, Session: session, PluginID: p.ID, PackageID: k.ID,
		Mode: att.Mode, Name: k.Name, Purpose: k.Purpose, RequiresApproval: requiresApproval, HasClientHalf: k.HasClient()})
	out := runOutput(ctx, q, att.PluginRunID, att.Mode, nil)
	out.Status = dynamic.StartStarting
	if requiresApproval {
		out.Status = dynamic.StartAwaitingApproval
	}
	out.ApprovalRequestID = reqID
	return out, nil
}

// runOutput builds the answer from the stored Plugin and the live run (nil when none).
func runOutput(ctx context.Context, p Plugin, runID string, mode dynamic.Mode, run *liveRun) dynamic.RunOutput {
	out := dynamic.RunOutput{PluginID: p.ID, PluginRunID: runID, Mode: mode, CurrentPackageID: p.Current, NextPackageID: p.Next}
	if a := p.Latest; a != nil && a.PluginRunID == runID {
		out.PackageID, out.Status, out.Client = a.PackageID, startStatus(a.Status), a.Client
		out.Host = dynamic.HostState{Status: a.Host.Status, Provides: []string{}, WaitingFor: nonNil(a.Host.WaitingFor), Error: a.Host.Error}
	}
	if run != nil {
		out.PackageID = run.pkg
		out.Host = hostState(ctx, run)
	}
	return out
}

// hostState reads a live run's host half.
func hostState(ctx context.Context, run *liveRun) dynamic.HostState {
	if run.host == nil {
		return dynamic.HostState{Status: dynamic.HalfAbsent, Provides: []string{}, WaitingFor: []string{}}
	}
	hs := dynamic.HostState{Status: dynamic.HalfRunning, Provides: nonNil(run.host.Provides()), WaitingFor: waitingFor(run), Handlers: run.host.Handlers(ctx)}
	if len(hs.WaitingFor) > 0 {
		hs.Status = dynamic.HalfWaiting
	}
	return hs
}

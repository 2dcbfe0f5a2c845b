package runner

import (
	"context"
	"fmt"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// Stop ends the Plugin's run and keeps its definition, Packages, pointers and grants
// (docs/dynamic-plugins.md, "Stop, undefine and retract"). A pending request is cancelled;
// a start in flight is cancelled and waited for, so once Stop returns nothing of the
// Plugin runs. Stopping a Plugin that is not running succeeds.
func (r *Runner) Stop(ctx context.Context, in dynamic.StopInput) (dynamic.StopOutput, error) {
	session, err := r.session(ctx)
	if err != nil {
		return dynamic.StopOutput{}, err
	}
	if _, err := r.stop(ctx, session, in.PluginID, false); err != nil && ReasonOf(err) != ReasonNotRunning {
		return dynamic.StopOutput{}, err
	}
	//lint:ignore S1016 the output names the Plugin stopped; that the input has the same shape is a coincidence
	return dynamic.StopOutput{PluginID: in.PluginID}, nil
}

// Undefine stops the Plugin like Stop and removes it with all its Packages and grants.
// Its ids are never minted again.
func (r *Runner) Undefine(ctx context.Context, in dynamic.UndefineInput) (dynamic.UndefineOutput, error) {
	session, err := r.session(ctx)
	if err != nil {
		return dynamic.UndefineOutput{}, err
	}
	was, err := r.stop(ctx, session, in.PluginID, true)
	if err != nil && ReasonOf(err) != ReasonNotRunning {
		return dynamic.UndefineOutput{}, err
	}
	return dynamic.UndefineOutput{PluginID: in.PluginID, WasRunning: was}, nil
}

// stop is Stop (remove false) and Undefine (remove true). wasRunning says whether a
// physical run existed; nothing live is ReasonNotRunning (after the removal, if any).
func (r *Runner) stop(ctx context.Context, session, id string, remove bool) (wasRunning bool, err error) {
	var ob outbox
	defer ob.flush()
	if err := r.lock(); err != nil {
		return false, err
	}
	if _, err := r.owned(ctx, session, id); err != nil {
		r.mu.Unlock()
		return false, err
	}
	l := r.liveOf(id)
	if l.gone {
		r.mu.Unlock()
		return false, missing(id)
	}
	busy := l.run != nil || l.start != nil || l.req != nil
	l.gone = remove
	why := "stopped"
	if remove {
		why = "removed"
	}
	cancelled := r.cancelRequest(ctx, &ob, id, l, why)
	start := l.start
	if start != nil {
		start.stop()
	}
	r.mu.Unlock()
	if start != nil {
		if err := start.wait(ctx); err != nil {
			return false, err
		}
	}
	r.mu.Lock()
	run := l.detach()
	if remove {
		err = r.store.Remove(ctx, id)
		delete(r.live, id)
	} else {
		_, err = r.updateAttempt(ctx, id, latestRunOf(r, ctx, id), Change{}, func(a *dynamic.Attempt) { markStopped(a, cancelled) })
		r.tidy(id)
	}
	r.mu.Unlock()
	if run != nil {
		r.stopRun(ctx, id, run)
	}
	if err != nil {
		return run != nil, err
	}
	if remove {
		DefinitionChanged.Emit(r.ctx(), DefinitionChangedEvent{Session: session, PluginID: id, Change: Undefined})
	}
	if !busy {
		return false, refuse(ReasonNotRunning, "%s is not running", id)
	}
	return run != nil, nil
}

// cancelRequest cancels Plugin id's pending request, if any. r.mu held.
func (r *Runner) cancelRequest(ctx context.Context, ob *outbox, id string, l *live, why string) bool {
	q := l.req
	if q == nil || !r.claim(q) {
		return false
	}
	_, _ = r.updateAttempt(ctx, id, q.runID, Change{}, func(a *dynamic.Attempt) {
		a.Status = dynamic.RunCancelled
		a.Error = &dynamic.Diagnostic{Phase: dynamic.PhaseApproval, Message: fmt.Sprintf("%s before the run finished starting", why), PluginID: id, PackageID: q.pkg, PluginRunID: q.runID}
		a.ApprovalRequestID, a.RequiresApproval = "", false
		for _, h := range []*dynamic.Half{&a.Host, &a.Client} {
			if h.Status != dynamic.HalfAbsent {
				h.Status = dynamic.HalfStopped
			}
		}
	})
	if q.id != "" {
		r.resolved(ob, q, OutcomeCancelled)
	}
	return true
}

// latestRunOf returns the run id of Plugin id's latest attempt, or "". r.mu held.
func latestRunOf(r *Runner, ctx context.Context, id string) string {
	p, err := r.store.Plugin(ctx, id)
	if err != nil || p.Latest == nil {
		return ""
	}
	return p.Latest.PluginRunID
}

// markStopped records a stop on the latest attempt when it was live; a cancelled request
// stays cancelled, and a past failure, rejection or expiry stays what it was.
func markStopped(a *dynamic.Attempt, cancelled bool) {
	switch a.Status {
	case dynamic.RunRunning, dynamic.RunWaiting, dynamic.RunClientPending, dynamic.RunStartingHost:
	default:
		return
	}
	if !cancelled {
		a.Status = dynamic.RunStopped
	}
	for _, h := range []*dynamic.Half{&a.Host, &a.Client} {
		if h.Status != dynamic.HalfAbsent {
			h.Status = dynamic.HalfStopped
		}
	}
}

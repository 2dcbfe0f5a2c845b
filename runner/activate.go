package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// An activation is a start in flight: at most one per Plugin, keyed by its attempt. A
// second start of the same attempt attaches to it; any other start is refused until it
// settles. Stop and undefine cancel it and wait for it, so no half outlives them.
type activation struct {
	runID, pkg string
	done       chan struct{}
	cancel     func()
	stopped    bool        // r.mu
	res        startResult // written before done closes
}

// stop cancels the start. r.mu held.
func (a *activation) stop() { a.stopped = true; a.cancel() }

// wait waits until the start settled, bounded by ctx.
func (a *activation) wait(ctx context.Context) error {
	select {
	case <-a.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the start of %s to unwind: %w (it is cancelled and cleans up after itself)", a.runID, context.Cause(ctx))
	}
}

// startResult is how an activation ended: a live run, or a refusal.
type startResult struct {
	run         *liveRun
	waitingFor  []string
	startedHere bool
	stopped     bool // a stop or the runner's Dispose cancelled it: theirs to record
	err         *Error
}

// activate makes run att of Package k the live run of Plugin p: it attaches to that run
// when it is live or starting, otherwise starts the host half and installs the run in
// place of whatever runs. A restart or an update starts the new half beside the working
// run and swaps only on success, unless the two would clash (see [beside]):
// then the working run is retracted before the new half is evaluated
// (docs/dynamic-plugins.md, "Activation").
// token is the answer token of the page starting it ("" for the model), forRequest the
// request it is started for. It commits nothing: the caller does.
func (r *Runner) activate(ctx context.Context, p Plugin, k Package, att *dynamic.Attempt, token, forRequest string) startResult {
	if err := r.lock(); err != nil {
		return startResult{err: err.(*Error)}
	}
	l := r.liveOf(p.ID)
	for l.stopping > 0 && l.start == nil && !l.gone {
		// An old run still holds its tools and services: wait for its stop (bounded by the
		// sandbox's teardown bound), then read the entry again (tidy may have replaced it).
		r.stopped.Wait()
		l = r.liveOf(p.ID)
	}
	if l.gone {
		r.mu.Unlock()
		return startResult{err: missing(p.ID)}
	}
	if a := l.start; a != nil {
		r.mu.Unlock()
		if a.runID != att.PluginRunID {
			return startResult{err: inFlight(p.ID, a)}
		}
		if err := a.wait(ctx); err != nil {
			return startResult{err: &Error{Reason: ReasonCancelled, Message: err.Error(), Err: err}}
		}
		res := a.res
		res.startedHere = false
		return res
	}
	if run := l.run; run != nil && run.id == att.PluginRunID {
		r.mu.Unlock()
		return startResult{run: run, waitingFor: waitingFor(run)}
	}
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := &activation{runID: att.PluginRunID, pkg: k.ID, done: make(chan struct{}), cancel: cancel}
	l.start = a
	kept := beside(l.run)
	var old *liveRun
	if kept == nil {
		old = l.detach()
	}
	r.mu.Unlock()
	defer close(a.done)

	if kept != nil {
		a.res = r.startHalf(actx, p, k, att, nil, kept)
		if a.res.err != nil && errors.Is(a.res.err, kit.ErrDuplicate) {
			// The new half registers a name the working run holds: stop that run first
			// after all, as an update does, and start the half again.
			kept, old = nil, r.detachFor(p.ID, a)
		}
	}
	if kept == nil {
		if old != nil {
			r.stopRun(ctx, p.ID, old)
		}
		a.res = r.startHalf(actx, p, k, att, old, nil)
	}
	if a.res.err == nil {
		a.res.run.token, a.res.run.forRequest = token, forRequest
	}
	r.mu.Lock()
	if a.res.err == nil && !a.stopped && !r.closed {
		replaced := l.detach() // the working run a restart kept until now, or nil
		l.run = a.res.run
		r.mu.Unlock()
		if replaced != nil {
			r.stopRun(ctx, p.ID, replaced)
		}
		DynamicPackage.Emit(r.ctx(), DynamicPackageEvent{PluginID: p.ID, PackageID: k.ID, PluginRunID: att.PluginRunID, Name: k.Name})
		r.mu.Lock()
	} else if a.stopped || r.closed {
		// Stopped (or the runner closed) while starting: the half never becomes live, and
		// the half's own error, if any, is only the cancellation (not a fault of the code).
		// The attempt reads stopped whichever of this and the stop's record comes first.
		run := a.res.run
		a.res = startResult{stopped: true, err: refuse(ReasonCancelled, "%s/%s (%s) was stopped while its host half was starting; nothing of it runs", p.ID, k.ID, att.PluginRunID)}
		_, _ = r.updateAttempt(ctx, p.ID, att.PluginRunID, Change{}, func(a *dynamic.Attempt) { markStopped(a, false) })
		r.mu.Unlock()
		if run != nil && run.host != nil {
			sctx, cancel := r.stopCtx()
			_ = run.host.Stop(sctx)
			cancel()
		}
		r.mu.Lock()
	}
	l.start = nil
	r.tidy(p.ID)
	r.mu.Unlock()
	return a.res
}

// beside returns the working run a start may run beside until it succeeds, whether it
// restarts the same Package or updates to another: run, when its host half provides no
// services (the new half may provide the same ones, or wait for them). Otherwise nil:
// the old run, if any, is retracted before the new half starts. A tool name both halves
// register is found only when the new half starts (kit.ErrDuplicate): activate then falls
// back to retracting first, so such a half is evaluated twice. r.mu held.
func beside(run *liveRun) *liveRun {
	if run == nil || (run.host != nil && len(run.host.Provides()) > 0) {
		return nil
	}
	return run
}

// detachFor detaches the live run of Plugin id for activation a, unless a stop or the
// runner's Dispose cancelled a (they stop the run themselves).
func (r *Runner) detachFor(id string, a *activation) *liveRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a.stopped || r.closed {
		return nil
	}
	return r.liveOf(id).detach()
}

// startHalf starts the host half of k, if it has one, and returns the new run. old is the
// run it replaces, already stopped; kept the working run it starts beside.
func (r *Runner) startHalf(ctx context.Context, p Plugin, k Package, att *dynamic.Attempt, old, kept *liveRun) startResult {
	run := &liveRun{id: att.PluginRunID, pkg: k.ID, session: p.Session, capability: secret()}
	if !k.HasHost() {
		return startResult{run: run, startedHere: true}
	}
	host, err := r.host.Start(ctx, r.group.Context(), HostSpec{PluginID: p.ID, Session: p.Session, Shares: r.opts.SharedServices, PackageID: k.ID, PluginRunID: att.PluginRunID, Code: k.Host})
	if err != nil {
		return startResult{err: hostFailure(p, k, att.PluginRunID, old, kept, err)}
	}
	run.host = host
	return startResult{run: run, waitingFor: waitingFor(run), startedHere: true}
}

// hostFailure teaches a failed host start, saying plainly what runs now: nothing, when
// old was stopped for it; kept, when the start ran beside it.
func hostFailure(p Plugin, k Package, runID string, old, kept *liveRun, err error) *Error {
	msg := fmt.Sprintf("the host half of %s/%s (%s) failed to start: %v.", p.ID, k.ID, runID, err)
	if errors.Is(err, context.Canceled) {
		// The call was cancelled, not the code at fault: say so and how to start again.
		msg = fmt.Sprintf("the start of %s/%s (%s) was cancelled: %v.", p.ID, k.ID, runID, err)
		msg += keptNote(p.ID, kept)
		if old != nil {
			msg += fmt.Sprintf(" Nothing of %s is running now: its previous run %s (%s) was stopped before the new half started.", p.ID, old.id, old.pkg)
		}
		msg += fmt.Sprintf(" The code was not at fault: cordis_run {pluginId:%q, packageId:%q} again to start it.", p.ID, k.ID)
		return &Error{Reason: ReasonCancelled, Message: msg, Err: err}
	}
	msg += keptNote(p.ID, kept)
	if old != nil {
		msg += fmt.Sprintf(" Nothing of %s is running now: its previous run %s (%s) was stopped before the new half started.", p.ID, old.id, old.pkg)
		if p.Current != "" && p.Current != k.ID {
			msg += fmt.Sprintf(" Roll back with cordis_run {pluginId:%q, packageId:%q, mode:\"run\"}, or", p.ID, p.Current)
		}
	}
	msg += fmt.Sprintf(" Fix the code, cordis_define a new Package on the same Plugin (plugin:{kind:\"existing\", pluginId:%q}) and cordis_run it.", p.ID)
	e := &Error{Reason: ReasonHostHalfFailed, Message: msg, Err: err}
	var js *sandbox.JSError
	if errors.As(err, &js) {
		e.Stack = js.Stack
	}
	return e
}

// keptNote says that the working run kept running through a failed restart or update, or "".
func keptNote(id string, kept *liveRun) string {
	if kept == nil {
		return ""
	}
	return fmt.Sprintf(" The working run %s (%s) of %s keeps running: the new half was started beside it, and nothing was stopped.", kept.id, kept.pkg, id)
}

func inFlight(id string, a *activation) *Error {
	return refuse(ReasonTransitionInFlight, "%s is already starting %s (%s); wait for that start to finish (cordis_inspect_self shows it), or cordis_stop %s to cancel it, then run again", id, a.pkg, a.runID, id)
}

// stopRun stops a detached run and announces its retraction. Never with r.mu held: the
// half's disposers may call back into the Runner.
func (r *Runner) stopRun(ctx context.Context, id string, run *liveRun) {
	if run.host != nil {
		if err := run.host.Stop(ctx); err != nil {
			r.logger.Warn("cordis runner: stopping a run reported", "plugin", id, "run", run.id, "err", err)
		}
	}
	r.mu.Lock()
	if l := r.live[id]; l != nil && l.stopping > 0 {
		l.stopping--
		r.tidy(id)
	}
	r.stopped.Broadcast()
	r.mu.Unlock()
	r.retracted(ctx, id)
	DynamicRetract.Emit(r.ctx(), DynamicRetractEvent{PluginID: id, PackageID: run.pkg, PluginRunID: run.id})
}

// stopCtx bounds a stop the runner makes on its own.
func (r *Runner) stopCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), r.opts.StopTimeout)
}

func waitingFor(run *liveRun) []string {
	if run.host == nil {
		return []string{}
	}
	return nonNil(run.host.WaitingFor())
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return slices.Clone(xs)
}

// newAttempt is a fresh attempt of k: each half pending if present, absent if not.
func newAttempt(runID string, k Package, mode dynamic.Mode) *dynamic.Attempt {
	half := func(present bool) dynamic.Half {
		if present {
			return dynamic.Half{Status: dynamic.HalfPending, WaitingFor: []string{}}
		}
		return dynamic.Half{Status: dynamic.HalfAbsent, WaitingFor: []string{}}
	}
	return &dynamic.Attempt{PluginRunID: runID, PackageID: k.ID, Mode: mode, Status: dynamic.RunStartingHost, Host: half(k.HasHost()), Client: half(k.HasClient())}
}

// updateAttempt applies c to Plugin id and, when its latest attempt is run runID, fn to
// that attempt, as one Store change. fn edits the attempt of the Plugin the Store read,
// which is this call's own copy (see [Store]). r.mu held.
func (r *Runner) updateAttempt(ctx context.Context, id, runID string, c Change, fn func(*dynamic.Attempt)) (Plugin, error) {
	p, err := r.store.Plugin(ctx, id)
	if err != nil {
		return p, err
	}
	if fn != nil && p.Latest != nil && p.Latest.PluginRunID == runID {
		fn(p.Latest)
		c.Attempt = p.Latest
	}
	if c == (Change{}) {
		return p, nil
	}
	return r.store.Update(ctx, id, c)
}

// commit makes the live run's Package current (docs/dynamic-plugins.md, "Activation").
// first, if not nil, records what settled the run on its attempt (a half started) in the
// same Store change, so the commit is one write. r.mu held.
func (r *Runner) commit(ctx context.Context, id string, run *liveRun, first func(*dynamic.Attempt)) (Plugin, error) {
	run.forRequest = ""
	return r.updateAttempt(ctx, id, run.id, Change{Current: ptr(run.pkg), Next: ptr(""), Running: ptr(true)}, func(a *dynamic.Attempt) {
		if first != nil {
			first(a)
		}
		a.Status = dynamic.RunRunning
		if a.Host.Status == dynamic.HalfWaiting || a.Client.Status == dynamic.HalfWaiting {
			a.Status = dynamic.RunWaiting
		}
		a.ApprovalRequestID, a.RequiresApproval, a.Error = "", false, nil
	})
}

// hostStarted records a started host half on the attempt. r.mu held.
func hostStarted(a *dynamic.Attempt, res startResult) {
	if a.Host.Status == dynamic.HalfAbsent {
		return
	}
	a.Host = dynamic.Half{Status: dynamic.HalfRunning, WaitingFor: nonNil(res.waitingFor)}
	if len(res.waitingFor) > 0 {
		a.Host.Status = dynamic.HalfWaiting
	}
}

// failAttempt marks the attempt failed with a diagnostic. r.mu held.
func failAttempt(id string, phase dynamic.Phase, e *Error) func(*dynamic.Attempt) {
	return func(a *dynamic.Attempt) {
		a.Status = dynamic.RunFailed
		a.Error = &dynamic.Diagnostic{Phase: phase, Message: e.Message, Stack: e.Stack, PluginID: id, PackageID: a.PackageID, PluginRunID: a.PluginRunID}
		switch phase {
		case dynamic.PhaseHostLoad, dynamic.PhaseHostApply:
			a.Host.Status, a.Host.Error = dynamic.HalfFailed, e.Message
		default:
			a.Client.Status, a.Client.Error = dynamic.HalfFailed, e.Message
		}
	}
}

// failStart records a failed start on its attempt. A start that a stop cancelled is
// recorded as stopped by activate, not as a failure of the code.
func (r *Runner) failStart(ctx context.Context, id, runID string, res startResult) {
	if res.stopped {
		return
	}
	_, _ = r.updateAttempt(ctx, id, runID, Change{}, failAttempt(id, dynamic.PhaseHostLoad, res.err))
}

// stackOf returns the JavaScript stack of a thrown value in err's chain, or "".
func stackOf(err error) string {
	var js *sandbox.JSError
	if errors.As(err, &js) {
		return js.Stack
	}
	return ""
}

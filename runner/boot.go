package runner

import (
	"context"
	"fmt"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// BootRestart reports whether the runner restarted Plugin id at boot (Options.RestartAtBoot),
// and how: the run it started and that run's status then (running, waiting, starting or
// awaiting-approval), or why it failed. A run starting or awaiting approval waits for a
// page as a run request, which PendingRequests lists with its ticket (New announced it
// before anything but the kit's listeners could hear it).
func (r *Runner) BootRestart(id string) (dynamic.BootRestart, bool) {
	r.msgMu.Lock()
	defer r.msgMu.Unlock()
	b, ok := r.restarts[id]
	return b, ok
}

// retracted clears Plugin.Running once a run was torn down while the runner lives,
// unless another run of the Plugin has committed since. Shutdown never calls it, so the
// flag survives a Dispose or a crash and tells the next boot what was running.
func (r *Runner) retracted(ctx context.Context, id string) {
	ctx = context.WithoutCancel(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.live[id]; l != nil && l.run != nil {
		return
	}
	p, err := r.store.Plugin(ctx, id)
	if err != nil || !p.Running {
		return // removed, or not marked
	}
	if _, err := r.store.Update(ctx, id, Change{Running: ptr(false)}); err != nil {
		r.logger.Warn("cordis runner: recording that a run ended", "plugin", id, "err", err)
	}
}

// boot reconciles what a durable Store restored with what runs now, which is nothing: an
// attempt that was live or in flight when the previous process ended is recorded as
// ended by the restart, and its session is told (the message is kept until the session
// connects). With Options.RestartAtBoot the Plugins that were running start again
// through Run, so a Package with a client half (or an ungranted one under
// ApproveHostHalves) becomes a run request again.
func (r *Runner) boot(ctx context.Context) error {
	ps, err := r.store.Plugins(ctx, "")
	if err != nil {
		return fmt.Errorf("runner: reading the definitions at boot: %w", err)
	}
	taken := map[string]bool{}
	for _, p := range ps {
		if !needsBoot(p) || !r.mayBoot(ctx, taken, p.Session) {
			continue // another live process runs this session
		}
		if err := r.bootPlugin(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// bootPlugin reconciles one restored Plugin.
func (r *Runner) bootPlugin(ctx context.Context, p Plugin) error {
	if !needsBoot(p) {
		return nil
	}
	a := p.Latest
	live := a != nil && (a.Status == dynamic.RunRunning || a.Status == dynamic.RunWaiting)
	lost := a != nil && (a.Status == dynamic.RunAwaitingApproval || a.Status == dynamic.RunStartingHost || a.Status == dynamic.RunClientPending)
	wasRunning := p.Current != "" && (p.Running || live && a.PackageID == p.Current)
	c := Change{Running: ptr(false)}
	if live || lost {
		c.Attempt = endedByRestart(p.ID, a, lost)
	}
	if _, err := r.store.Update(ctx, p.ID, c); err != nil {
		return fmt.Errorf("runner: recording at boot that the run of %s ended with the previous process: %w", p.ID, err)
	}
	var text string
	if lost {
		text = fmt.Sprintf("The runtime restarted while the %s of %s/%s (%s) was %s; that start was lost and nothing of it runs. ", a.Mode, p.ID, a.PackageID, a.PluginRunID, a.Status)
		if !wasRunning {
			text += fmt.Sprintf("currentPackageId is %s. Call cordis_run again to start it.", orNone(p.Current))
			r.message(p.Session, dynamic.MessageSteer, p.ID, text)
			return nil
		}
	}
	switch {
	case !wasRunning:
		return nil
	case !r.opts.RestartAtBoot:
		text += fmt.Sprintf("%s was running %s when the runtime stopped and is stopped now; its Packages and grants were kept. Start it again with cordis_run {pluginId:%q, packageId:%q, mode:\"run\"}.", p.ID, p.Current, p.ID, p.Current)
	default:
		text += r.restartAtBoot(p)
	}
	r.message(p.Session, dynamic.MessageInject, p.ID, text)
	return nil
}

// needsBoot reports whether a restored Plugin has something for boot to reconcile: it
// was running, or its latest attempt was live or in flight.
func needsBoot(p Plugin) bool {
	if p.Running || p.Latest == nil {
		return p.Running
	}
	switch p.Latest.Status {
	case dynamic.RunRunning, dynamic.RunWaiting, dynamic.RunAwaitingApproval, dynamic.RunStartingHost, dynamic.RunClientPending:
		return true
	}
	return false
}

// endedByRestart is a's record once the process it ran in has ended: a live run
// stopped, a start in flight cancelled with a diagnostic that says why.
func endedByRestart(id string, a *dynamic.Attempt, lost bool) *dynamic.Attempt {
	a = cloneAttempt(a)
	if !lost {
		markStopped(a, false)
		return a
	}
	a.Status = dynamic.RunCancelled
	a.Error = &dynamic.Diagnostic{Phase: dynamic.PhaseApproval, Message: "the runtime restarted before this run finished starting (pending requests and starts do not survive a restart)", PluginID: id, PackageID: a.PackageID, PluginRunID: a.PluginRunID}
	a.ApprovalRequestID, a.RequiresApproval = "", false
	for _, h := range []*dynamic.Half{&a.Host, &a.Client} {
		if h.Status != dynamic.HalfAbsent {
			h.Status = dynamic.HalfStopped
		}
	}
	return a
}

// restartAtBoot runs p's current Package again as its owning session and says what
// happened, for the session's model.
func (r *Runner) restartAtBoot(p Plugin) string {
	out, err := r.Run(kit.WithSession(context.Background(), p.Session), dynamic.RunInput{PluginID: p.ID, PackageID: p.Current, Mode: dynamic.ModeRun})
	b := dynamic.BootRestart{PackageID: p.Current, PluginRunID: out.PluginRunID, Status: out.Status}
	var text string
	switch {
	case err != nil:
		b.Status, b.Error = dynamic.StartFailed, err.Error()
		text = fmt.Sprintf("%s was running %s when the runtime stopped; restarting it at boot failed: %v", p.ID, p.Current, err)
	case out.Status == dynamic.StartStarting || out.Status == dynamic.StartAwaitingApproval:
		text = fmt.Sprintf("%s was running %s when the runtime stopped; its restart at boot is run request %s (%s, status %s): it runs once a page of the Cordis panel starts it%s.",
			p.ID, p.Current, out.ApprovalRequestID, out.PluginRunID, out.Status, approvalNote(out.Status))
	default:
		text = fmt.Sprintf("%s was running %s when the runtime stopped and was restarted at boot as %s (status %s).", p.ID, p.Current, out.PluginRunID, out.Status)
	}
	r.msgMu.Lock()
	if r.restarts == nil {
		r.restarts = map[string]dynamic.BootRestart{}
	}
	r.restarts[p.ID] = b
	r.msgMu.Unlock()
	return text
}

func approvalNote(status dynamic.StartStatus) string {
	if status == dynamic.StartAwaitingApproval {
		return " after the user approves it again (no grant covers it)"
	}
	return ""
}

package runner

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
)

// Invoke calls handler method of the live run pluginRunID of Plugin pluginID
// (docs/dynamic-plugins.md, "Invoke"), with JSON args (empty means null). capability is
// the run's, which only pages that loaded the run hold (runHostHalf, getClientCode) and Go
// code of the owning session reads with RunCapability: predictable ids are not enough to
// call a handler. Failures are an *InvokeError whose Code is checked in this order:
// plugin-not-running, stale-run, invalid-capability, method-not-found (also invalid-args),
// handler-error. A handler error also steers the owning session's model, once per run and
// (method, message).
func (r *Runner) Invoke(ctx context.Context, pluginID, pluginRunID, capability, method string, args json.RawMessage) (json.RawMessage, error) {
	run, ie := r.invokedRun(pluginID, pluginRunID, method)
	switch {
	case ie != nil:
		return nil, ie
	case subtle.ConstantTimeCompare([]byte(capability), []byte(run.capability)) != 1:
		return nil, &InvokeError{Code: InvokeForbidden, Message: fmt.Sprintf("the capability does not belong to run %s of %s: only a page that loaded this run (getClientCode) may call its handlers", pluginRunID, pluginID)}
	case run.host == nil:
		return nil, &InvokeError{Code: InvokeMethodNotFound, Message: fmt.Sprintf("%s (%s) has no host half, so it registered no host method %q; add a host half that declares it with harness.handle(%q, async (args) => …)", pluginID, pluginRunID, method, method)}
	}
	if len(args) == 0 {
		args = json.RawMessage("null")
	} else if !json.Valid(args) {
		return nil, &InvokeError{Code: InvokeBadArgs, Message: fmt.Sprintf("host.call(%q) on %s: the arguments are not JSON; pass JSON data, or omit them (the handler receives null)", method, pluginID)}
	}
	out, err := run.host.Invoke(ctx, method, args)
	if errors.Is(err, ErrMethodNotFound) {
		return nil, &InvokeError{Code: InvokeMethodNotFound, Message: fmt.Sprintf("%s (%s) registered no host method %q; the host half must declare it with harness.handle(%q, async (args) => …)", pluginID, pluginRunID, method, method), Err: err}
	}
	if _, gone := r.invokedRun(pluginID, pluginRunID, method); err != nil && gone != nil {
		// The run was stopped or replaced while its handler ran: that, not the handler,
		// is why it failed (its realm closed under it).
		gone.Err = err
		return nil, gone
	}
	if err != nil {
		ie := &InvokeError{Code: InvokeHandlerError, Message: fmt.Sprintf("host.call(%q) failed inside the host handler of %s (%s): %v", method, pluginID, pluginRunID, err), Stack: stackOf(err), Err: err}
		r.runtimeFailure(ctx, pluginID, run, "host:"+method, fmt.Sprintf("The host handler %q of %s (%s) failed when the client called host.call(%q): %v%s\nThe Plugin remains running. Fix the handler, cordis_define a new Package on %s and cordis_run it with mode \"update\". If it needs a service, declare it in inject or read it with ctx.get.",
			method, pluginID, pluginRunID, method, err, withStack(ie.Stack), pluginID))
		return nil, ie
	}
	return out, nil
}

// invokedRun returns the live run of Plugin pluginID when it is run pluginRunID, or the
// plugin-not-running or stale-run error that says why it is not.
func (r *Runner) invokedRun(pluginID, pluginRunID, method string) (*liveRun, *InvokeError) {
	r.mu.Lock()
	var run *liveRun
	if l := r.live[pluginID]; l != nil {
		run = l.run
	}
	r.mu.Unlock()
	switch {
	case run == nil:
		return nil, &InvokeError{Code: InvokePluginNotRunning, Message: fmt.Sprintf("%s is not running: it has no active host half (it was stopped or removed)", pluginID)}
	case run.id != pluginRunID:
		return nil, &InvokeError{Code: InvokeStaleRun, Message: fmt.Sprintf("host.call(%q) belongs to activation %s of %s, which is no longer active (the live run is %s); reload the client half", method, pluginRunID, pluginID, run.id)}
	}
	return run, nil
}

// RunCapability returns the live run of a Plugin of the calling session and its
// capability, for Go code that invokes the run's handlers on the session's behalf.
func (r *Runner) RunCapability(ctx context.Context, pluginID string) (pluginRunID, capability string, err error) {
	session, err := r.session(ctx)
	if err != nil {
		return "", "", err
	}
	if _, err := r.owned(ctx, session, pluginID); err != nil {
		return "", "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.live[pluginID]; l != nil && l.run != nil {
		return l.run.id, l.run.capability, nil
	}
	return "", "", refuse(ReasonNotRunning, "%s is not running; start it with cordis_run", pluginID)
}

// runtimeFailure steers the owner about a failure of a live run, once per (key, text), and
// only while it is the Plugin's live run — also when a later attempt (a restart that failed
// or was declined) is the latest, since the working run still serves.
func (r *Runner) runtimeFailure(ctx context.Context, pluginID string, run *liveRun, key, text string) {
	r.mu.Lock()
	l := r.live[pluginID]
	if l == nil || l.run != run || run.reported[key+"\x00"+text] {
		r.mu.Unlock()
		return
	}
	p, err := r.store.Plugin(ctx, pluginID)
	if err != nil {
		r.mu.Unlock()
		return
	}
	if run.reported == nil {
		run.reported = map[string]bool{}
	}
	run.reported[key+"\x00"+text] = true
	r.mu.Unlock()
	r.message(p.Session, Steer, pluginID, text)
}

func withStack(s string) string {
	if s == "" {
		return ""
	}
	return "\n" + s
}

package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// InvokeParams name the handler Invoke calls and its argument.
type InvokeParams struct {
	// PluginID is the Plugin whose live run is called, such as "clock-1".
	PluginID string
	// PluginRunID, when set, is the run the caller means: the call fails with stale-run
	// when another run of the Plugin is live. Empty calls whichever run is live.
	PluginRunID string
	// Method is the handler's name, as the host half registered it with
	// harness.handle(method, …).
	Method string
	// Args is the handler's argument, encoded with encoding/json (a json.RawMessage is
	// passed as it is); nil is null.
	Args any
}

// Invoke calls a handler of a Plugin's live run from Go code of the runtime, as a page's
// host.call does, and returns the handler's JSON result:
//
//	out, err := r.Invoke(ctx, &runner.InvokeParams{PluginID: "greet-1", Method: "greet", Args: map[string]string{"name": "Grace"}})
//
// Go code of the runtime is trusted, so the call needs no run capability; it is still
// scoped to a session when ctx carries one (kit.WithSession): then only that session's
// Plugins can be called, and another session's reads as one that is not running. Without
// a session on ctx any Plugin can be called. A page calls InvokeFromPanel instead, with
// the capability of the run it loaded.
//
// Failures are an *InvokeError whose Code is checked in this order: plugin-not-running,
// stale-run, method-not-found (also invalid-args), handler-error. A handler error also
// steers the owning session's model, once per run and (method, message).
func (r *Runner) Invoke(ctx context.Context, p *InvokeParams) (json.RawMessage, error) {
	if session, ok := kit.SessionFrom(ctx); ok && r.sessionOf(ctx, p.PluginID) != session {
		return nil, notRunning(p.PluginID) // before any other check: nothing tells another session's Plugin from a missing one
	}
	runID := p.PluginRunID
	if runID == "" {
		r.mu.Lock()
		if l := r.live[p.PluginID]; l != nil && l.run != nil {
			runID = l.run.id
		}
		r.mu.Unlock()
	}
	run, ie := r.invokedRun(p.PluginID, runID, p.Method)
	if ie != nil {
		return nil, ie
	}
	args, err := json.Marshal(p.Args)
	if err != nil {
		return nil, &InvokeError{Code: InvokeBadArgs, Message: fmt.Sprintf("invoking %q on %s: the arguments do not encode as JSON (%v); pass JSON data, or nil for null", p.Method, p.PluginID, err), Err: err}
	}
	return r.invoke(ctx, p.PluginID, run.id, p.Method, args, run)
}

// InvokeFromPanel calls a handler of a live run for a page (its host.call): only a page
// that loaded the run holds its capability, so predictable ids are not enough to call a
// handler. Failures are an *InvokeError whose Code is checked in this order:
// plugin-not-running, stale-run, invalid-capability, method-not-found (also
// invalid-args), handler-error. A handler error also steers the owning session's model,
// once per run and (method, message).
func (r *Runner) InvokeFromPanel(ctx context.Context, a page.InvokeArgs) (json.RawMessage, error) {
	run, ie := r.invokedRun(a.PluginID, a.PluginRunID, a.Method)
	switch {
	case ie != nil:
		return nil, ie
	case !page.SameSecret(a.Capability, run.capability):
		return nil, &InvokeError{Code: InvokeForbidden, Message: fmt.Sprintf("the capability does not belong to run %s of %s: only a page that loaded this run (getClientCode) may call its handlers", a.PluginRunID, a.PluginID)}
	}
	return r.invoke(ctx, a.PluginID, a.PluginRunID, a.Method, a.Args, run)
}

// invoke calls method of run, the live run pluginRunID of Plugin pluginID, once the
// caller may.
func (r *Runner) invoke(ctx context.Context, pluginID, pluginRunID, method string, args json.RawMessage, run *liveRun) (json.RawMessage, error) {
	if run.host == nil {
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

// sessionOf returns the session that owns Plugin id, or "" when there is none.
func (r *Runner) sessionOf(ctx context.Context, id string) string {
	p, err := r.store.Plugin(ctx, id)
	if err != nil {
		return ""
	}
	return p.Session
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
		return nil, notRunning(pluginID)
	case run.id != pluginRunID:
		return nil, &InvokeError{Code: InvokeStaleRun, Message: fmt.Sprintf("host.call(%q) belongs to activation %s of %s, which is no longer active (the live run is %s); reload the client half", method, pluginRunID, pluginID, run.id)}
	}
	return run, nil
}

// notRunning is the plugin-not-running error of Plugin id: also what another session's
// Plugin reads as.
func notRunning(id string) *InvokeError {
	return &InvokeError{Code: InvokePluginNotRunning, Message: fmt.Sprintf("%s is not running: it has no active host half (it was stopped or removed)", id)}
}

// RunCapability returns the live run of a Plugin of the calling session and its
// capability, for a page the runtime serves itself (the panel's pages get it from
// RunHostHalf or GetClientCode) that calls the run's handlers through InvokeFromPanel.
// Go code calls Invoke, which needs no capability.
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
	r.message(p.Session, dynamic.MessageSteer, pluginID, text)
}

func withStack(s string) string {
	if s == "" {
		return ""
	}
	return "\n" + s
}

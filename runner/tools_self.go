package runner

import (
	"context"
	"strings"

	"github.com/cordiskit/cordiskit/runner/decl"
)

// inspectSelf is cordis_inspect_self. Its checks run in the order of spec §5.3: a
// packageId needs a pluginId, the Plugin must be this session's, the Package must be the
// Plugin's. Every mode carries the latest run with its diagnostic, and the listing the
// messages kept for this session while it was not connected.
func (r *Runner) inspectSelf(ctx context.Context, in decl.InspectSelfInput) (decl.InspectSelfOutput, error) {
	pluginID, packageID := strings.TrimSpace(in.PluginID), strings.TrimSpace(in.PackageID)
	switch {
	case packageID != "" && pluginID == "":
		return decl.InspectSelfOutput{}, refuse(ReasonInvalid, `cordis_inspect_self: packageId %q needs the pluginId it belongs to; pass both (cordis_inspect_self {} lists your Plugins, {pluginId} a Plugin's Packages)`, packageID)
	case pluginID == "":
		return r.selfPlugins(ctx)
	case packageID == "":
		s, err := r.InspectPlugin(ctx, pluginID)
		if err != nil {
			return decl.InspectSelfOutput{}, err
		}
		out := summaryOut(s)
		return decl.InspectSelfOutput{Mode: decl.SelfPlugin, Plugin: &out}, nil
	}
	v, err := r.InspectPackage(ctx, pluginID, packageID)
	if err != nil {
		return decl.InspectSelfOutput{}, err
	}
	s := summaryOut(v.Plugin)
	return decl.InspectSelfOutput{Mode: decl.SelfPackage, Plugin: &s, Package: r.packageOut(v)}, nil
}

// selfPlugins is the listing: every Plugin of the session and its kept messages.
func (r *Runner) selfPlugins(ctx context.Context) (decl.InspectSelfOutput, error) {
	ls, err := r.listings(ctx)
	if err != nil {
		return decl.InspectSelfOutput{}, err
	}
	runs := r.activeRuns(ls)
	plugins := make([]decl.PluginSummary, 0, len(ls))
	b := newOutBlock(len(ls))
	for i, l := range ls {
		plugins = append(plugins, b.summary(r.summarize(l, runs[i])))
	}
	out := decl.InspectSelfOutput{Mode: decl.SelfPlugins, Plugins: &plugins}
	session, _ := r.session(ctx)
	for _, m := range r.Messages(session) {
		out.Messages = append(out.Messages, decl.Message{Kind: decl.MessageKind(m.Kind), PluginID: m.PluginID, Text: m.Text})
	}
	return out, nil
}

// packageOut describes one Package: its source, and a state of its own (not the Plugin's
// latest attempt when that attempt was for another Package).
func (r *Runner) packageOut(v PackageView) *decl.PackageDetail {
	d := &decl.PackageDetail{PackageID: v.PackageID, Name: v.Name, Purpose: v.Purpose,
		Code:    decl.Code{Host: v.Code.Host, Client: v.Code.Client},
		Runtime: decl.Runtime{Host: hostStateOut(v.Host), Client: halfOut(v.Client)}}
	p := v.Plugin
	switch {
	case p.ActiveRun != nil && p.ActiveRun.PackageID == v.PackageID:
		d.Runtime.State = decl.StateRunning
		if v.Host.Status == HalfWaiting || v.Client.Status == HalfWaiting {
			d.Runtime.State = decl.StateWaiting
		}
	case p.LatestRun != nil && p.LatestRun.PackageID == v.PackageID:
		d.Runtime.State = attemptState(p.LatestRun, v.Code.Client != nil)
	case p.CurrentPackageID == v.PackageID:
		d.Runtime.State = decl.StateStopped
	default:
		d.Runtime.State = decl.StateDefined
	}
	return d
}

// attemptState is the state a Package is in after its latest attempt, when it is not
// the live run.
func attemptState(a *Attempt, hasClient bool) decl.PluginState {
	switch a.Status {
	case StatusStartingHost:
		if hasClient {
			return decl.StateClientPending
		}
		return decl.StateStarting
	case StatusRunning, StatusWaiting:
		return decl.StateStopped // its run is gone: the live run is another Package's, or none
	}
	return decl.PluginState(a.Status)
}

// An outBlock holds the attempts and live runs that the summaries of a listing point to,
// one allocation for each kind however many Plugins are listed; once full (and the zero
// outBlock always is) it allocates them one by one.
type outBlock struct {
	attempts []decl.Attempt
	runs     []decl.ActiveRun
}

// newOutBlock returns an outBlock with room for n Plugins.
func newOutBlock(n int) *outBlock {
	return &outBlock{attempts: make([]decl.Attempt, 0, n), runs: make([]decl.ActiveRun, 0, n)}
}

// take returns a pointer to v stored in *block, or to a new copy once block is full.
func take[T any](block *[]T, v T) *T {
	if len(*block) == cap(*block) {
		p := new(T) // not &v, which would move every v to the heap
		*p = v
		return p
	}
	*block = append(*block, v)
	return &(*block)[len(*block)-1]
}

func summaryOut(s Summary) decl.PluginSummary {
	var b outBlock
	return b.summary(s)
}

// summary is s as the tool's output.
func (b *outBlock) summary(s Summary) decl.PluginSummary {
	out := decl.PluginSummary{PluginID: s.PluginID, Name: s.Name, PackageCount: s.PackageCount, State: decl.PluginState(s.State),
		CurrentPackageID: s.CurrentPackageID, NextPackageID: s.NextPackageID, Restored: s.Restored}
	if s.LatestRun != nil {
		out.LatestRun = take(&b.attempts, attemptOut(s.LatestRun))
	}
	if r := s.BootRestart; r != nil {
		out.BootRestart = &decl.BootRestart{PackageID: r.PackageID, PluginRunID: r.PluginRunID, Status: r.Status, Error: r.Error}
	}
	if s.ActiveRun != nil {
		out.ActiveRun = take(&b.runs, decl.ActiveRun{PluginRunID: s.ActiveRun.PluginRunID, PackageID: s.ActiveRun.PackageID})
	}
	if a := s.PendingApproval; a != nil {
		out.PendingApproval = &decl.PendingApproval{PackageID: a.PackageID, Mode: decl.Mode(a.Mode)}
		if s.LatestRun != nil {
			out.PendingApproval.PluginRunID = s.LatestRun.PluginRunID
		}
	}
	for _, k := range s.Packages {
		out.Packages = append(out.Packages, decl.PackageInfo{PackageID: k.PackageID, Name: k.Name, Purpose: k.Purpose,
			HasHostHalf: k.HasHostHalf, HasClientHalf: k.HasClientHalf,
			IsCurrent: k.PackageID == s.CurrentPackageID, IsNext: k.PackageID == s.NextPackageID})
	}
	return out
}

// attemptOut is a as the tool's output.
func attemptOut(a *Attempt) decl.Attempt {
	out := decl.Attempt{PluginRunID: a.PluginRunID, PackageID: a.PackageID, Mode: decl.Mode(a.Mode), Status: decl.RunStatus(a.Status),
		ApprovalRequestID: a.ApprovalRequestID, RequiresApproval: a.RequiresApproval, Host: halfOut(a.Host), Client: halfOut(a.Client)}
	if e := a.Error; e != nil {
		out.Error = &decl.Diagnostic{Phase: decl.Phase(e.Phase), Message: e.Message, Stack: e.Stack, PluginID: e.PluginID,
			PackageID: e.PackageID, PluginRunID: e.PluginRunID}
	}
	if f := a.RenderFailure; f != nil {
		out.RenderFailure = &decl.RenderFailure{Slot: f.Slot, Message: f.Message, Stack: f.Stack, Abdicated: f.Abdicated}
	}
	return out
}

func halfOut(h Half) decl.Half {
	return decl.Half{Status: decl.HalfStatus(h.Status), WaitingFor: nonNil(h.WaitingFor), Error: h.Error}
}

func hostStateOut(h HostState) decl.HostState {
	return decl.HostState{Status: decl.HalfStatus(h.Status), Provides: nonNil(h.Provides), WaitingFor: nonNil(h.WaitingFor),
		Handlers: h.Handlers, Error: h.Error}
}

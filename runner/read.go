package runner

import (
	"context"
	"fmt"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// liveFor returns the live run a report names, if the report may speak for it.
func (r *Runner) liveFor(ctx context.Context, a page.ReportArgs) (*liveRun, Plugin, bool) {
	p, err := r.owned(ctx, a.Session, a.PluginID)
	if err != nil {
		return nil, p, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.live[a.PluginID]
	if l == nil || l.run == nil || l.run.id != a.PluginRunID || !page.SameSecret(a.Capability, l.run.capability) {
		return nil, p, false
	}
	return l.run, p, true
}

// ReportRenderFailure records that the client half of a live run crashed while rendering
// (docs/dynamic-plugins.md, "A run attempt's status"). The run stays live and its status
// stays what it is: the failure is kept beside it (Attempt.RenderFailure), so later
// runtime failures are still reported. The first report of a run steers the owner. Reports
// that do not name the live run with its capability are dropped.
func (r *Runner) ReportRenderFailure(ctx context.Context, a page.ReportArgs, f dynamic.RenderFailure) {
	run, p, ok := r.liveFor(ctx, a)
	if !ok {
		return
	}
	r.mu.Lock()
	_, _ = r.updateAttempt(ctx, p.ID, run.id, Change{}, func(at *dynamic.Attempt) { at.RenderFailure = &f })
	r.mu.Unlock()
	held := "held its slot"
	if f.Abdicated {
		held = "abdicated its slot"
	}
	r.runtimeFailure(ctx, p.ID, run, "render", fmt.Sprintf("The client UI of %s (%s) failed while rendering slot %s and %s: %s%s\nFix it with a new Package (cordis_define on %s) and cordis_run mode \"update\".",
		p.ID, run.id, f.Slot, held, f.Message, withStack(f.Stack), p.ID))
}

// ReportClientGuardFailure reports that the client guard refused runtime code of a live run
// after it started; the owner is steered once per message.
func (r *Runner) ReportClientGuardFailure(ctx context.Context, a page.ReportArgs, message, stack string) {
	run, p, ok := r.liveFor(ctx, a)
	if !ok {
		return
	}
	r.runtimeFailure(ctx, p.ID, run, "client-guard", fmt.Sprintf("The client guard of %s (%s) rejected runtime code: %s%s\nThe Plugin remains running. Define a fix with cordis_define on %s and cordis_run it with mode \"update\".",
		p.ID, run.id, message, withStack(stack), p.ID))
}

// packageInfos lists p's Packages without their source, in define order.
func packageInfos(p Plugin) []dynamic.PackageInfo {
	rows := make([]dynamic.PackageInfo, 0, len(p.Packages))
	for _, k := range p.Packages {
		rows = append(rows, dynamic.PackageInfo{PackageID: k.ID, Name: k.Name, Purpose: k.Purpose, HasHostHalf: k.HasHost(), HasClientHalf: k.HasClient(),
			IsCurrent: k.ID == p.Current, IsNext: k.ID == p.Next})
	}
	return rows
}

// activeRun returns the live run of Plugin id, or nil.
func (r *Runner) activeRun(id string) *dynamic.ActiveRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.live[id]; l != nil && l.run != nil {
		return &dynamic.ActiveRun{PluginRunID: l.run.id, PackageID: l.run.pkg}
	}
	return nil
}

// activeRuns returns the live run of each of ls, in order (nil for one that has none),
// read under one lock into one allocation however many Plugins are listed.
func (r *Runner) activeRuns(ls []Listing) []*dynamic.ActiveRun {
	runs := make([]dynamic.ActiveRun, len(ls))
	out := make([]*dynamic.ActiveRun, len(ls))
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, p := range ls {
		if l := r.live[p.ID]; l != nil && l.run != nil {
			runs[i] = dynamic.ActiveRun{PluginRunID: l.run.id, PackageID: l.run.pkg}
			out[i] = &runs[i]
		}
	}
	return out
}

// listings lists the calling session's Plugins in creation order, without their Packages.
func (r *Runner) listings(ctx context.Context) ([]Listing, error) {
	session, err := r.session(ctx)
	if err != nil {
		return nil, err
	}
	return r.store.Listings(ctx, session)
}

// packageDetail describes Package k of p with its source, and its halves' state: live
// when it is the running Package, else from the latest attempt of this Package. Its
// state is its own, not the Plugin's latest attempt's when that was for another Package.
func (r *Runner) packageDetail(ctx context.Context, p Plugin, k Package, s dynamic.PluginSummary) *dynamic.PackageDetail {
	d := &dynamic.PackageDetail{PackageID: k.ID, Name: k.Name, Purpose: k.Purpose, Runtime: dynamic.Runtime{
		Host:   dynamic.HostState{Status: dynamic.HalfAbsent, Provides: []string{}, WaitingFor: []string{}},
		Client: dynamic.Half{Status: dynamic.HalfAbsent, WaitingFor: []string{}}}}
	rt := &d.Runtime
	if k.HasHost() {
		d.Code.Host, rt.Host.Status = ptr(k.Host), dynamic.HalfStopped
	}
	if k.HasClient() {
		d.Code.Client, rt.Client.Status = ptr(k.Client), dynamic.HalfStopped
	}
	if a := p.Latest; a != nil && a.PackageID == k.ID {
		rt.Host.Status, rt.Host.WaitingFor, rt.Host.Error = a.Host.Status, nonNil(a.Host.WaitingFor), a.Host.Error
		rt.Client = a.Client
		rt.Client.WaitingFor = nonNil(a.Client.WaitingFor)
	}
	r.mu.Lock()
	var run *liveRun
	if l := r.live[p.ID]; l != nil && l.run != nil && l.run.pkg == k.ID {
		run = l.run
	}
	r.mu.Unlock()
	if run != nil && run.host != nil {
		rt.Host = hostState(ctx, run)
	}
	switch {
	case s.ActiveRun != nil && s.ActiveRun.PackageID == k.ID:
		rt.State = dynamic.PluginRunning
		if rt.Host.Status == dynamic.HalfWaiting || rt.Client.Status == dynamic.HalfWaiting {
			rt.State = dynamic.PluginWaiting
		}
	case s.LatestRun != nil && s.LatestRun.PackageID == k.ID:
		rt.State = attemptState(s.LatestRun, k.HasClient())
	case s.CurrentPackageID == k.ID:
		rt.State = dynamic.PluginStopped
	default:
		rt.State = dynamic.PluginDefined
	}
	return d
}

// orEmpty is xs, or an empty list for nil: a list on the wire is [], never null.
func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// attemptState is the state a Package is in after its latest attempt, when it is not
// the live run.
func attemptState(a *dynamic.Attempt, hasClient bool) dynamic.PluginState {
	switch a.Status {
	case dynamic.RunStartingHost:
		if hasClient {
			return dynamic.PluginClientPending
		}
		return dynamic.PluginStarting
	case dynamic.RunRunning, dynamic.RunWaiting:
		return dynamic.PluginStopped // its run is gone: the live run is another Package's, or none
	}
	return pluginState(a.Status)
}

// pluginState is the state of a Plugin whose latest attempt ended with s (ended(s)), or
// awaits approval or a page.
func pluginState(s dynamic.RunStatus) dynamic.PluginState {
	switch s {
	case dynamic.RunAwaitingApproval:
		return dynamic.PluginAwaitingApproval
	case dynamic.RunStartingHost:
		return dynamic.PluginStarting
	case dynamic.RunClientPending:
		return dynamic.PluginClientPending
	case dynamic.RunRunning:
		return dynamic.PluginRunning
	case dynamic.RunWaiting:
		return dynamic.PluginWaiting
	case dynamic.RunRejected:
		return dynamic.PluginRejected
	case dynamic.RunFailed:
		return dynamic.PluginFailed
	case dynamic.RunCancelled:
		return dynamic.PluginCancelled
	case dynamic.RunExpired:
		return dynamic.PluginExpired
	}
	return dynamic.PluginStopped
}

// summary derives a Plugin's summary from its listing; rejected, cancelled and expired
// stay distinct, and a Plugin whose working run outlived a later attempt reads running.
func (r *Runner) summary(p Listing) dynamic.PluginSummary {
	return r.summarize(p, r.activeRun(p.ID))
}

// summarize is [Runner.summary] with the Plugin's live run, run (nil when it has none),
// already read. The latest attempt is the listing's own copy, shared by the summary.
func (r *Runner) summarize(p Listing, run *dynamic.ActiveRun) dynamic.PluginSummary {
	s := dynamic.PluginSummary{PluginID: p.ID, Name: p.Name, PackageCount: p.PackageCount, CurrentPackageID: p.Current,
		NextPackageID: p.Next, ActiveRun: run, LatestRun: p.Latest, Restored: p.Restored}
	if b, ok := r.BootRestart(p.ID); ok {
		s.BootRestart = ptr(b) // a copy only when there is one: &b would move b to the heap for every Plugin
	}
	a := p.Latest
	if a != nil { // the listing's own copy: a Store may read back a half's empty list as nil
		a.Host.WaitingFor, a.Client.WaitingFor = orEmpty(a.Host.WaitingFor), orEmpty(a.Client.WaitingFor)
	}
	switch {
	case a == nil || a.Status == dynamic.RunStopped:
		switch {
		case s.ActiveRun != nil:
			s.State = dynamic.PluginRunning
		case p.Current != "":
			s.State = dynamic.PluginStopped
		default:
			s.State = dynamic.PluginDefined
		}
	case a.Status == dynamic.RunStartingHost || a.Status == dynamic.RunClientPending:
		s.State = dynamic.PluginClientPending
		if !p.LatestHasClient {
			s.State = dynamic.PluginStarting
		}
	case s.ActiveRun != nil && ended(a.Status):
		// A restart that failed or was declined, cancelled or expired left the working run
		// running: the Plugin runs, and LatestRun says what became of the attempt.
		s.State = dynamic.PluginRunning
	default:
		s.State = pluginState(a.Status)
	}
	if a != nil && a.Status == dynamic.RunAwaitingApproval {
		s.PendingApproval = &dynamic.PendingApproval{PluginRunID: a.PluginRunID, PackageID: a.PackageID, Mode: a.Mode}
	}
	return s
}

func (p *Plugin) hasClient(id string) bool {
	k, ok := p.Package(id)
	return ok && k.HasClient()
}

// Reference is what an @pluginId mention in user text resolves to: the Plugin's
// reference Package (next, else current, else the last defined), pointers and latest run,
// never source.
type Reference struct {
	PluginID         string             `json:"pluginId"`
	PackageID        string             `json:"packageId"`
	Name             string             `json:"name"`
	Purpose          string             `json:"purpose"`
	CurrentPackageID string             `json:"currentPackageId,omitempty"`
	NextPackageID    string             `json:"nextPackageId,omitempty"`
	ActiveRun        *dynamic.ActiveRun `json:"activeRun,omitempty"`
	LatestRun        *dynamic.Attempt   `json:"latestRun,omitempty"`
}

// Reference resolves a Plugin of the calling session; ok is false when it is not one.
func (r *Runner) Reference(ctx context.Context, pluginID string) (Reference, bool) {
	session, err := r.session(ctx)
	if err != nil {
		return Reference{}, false
	}
	p, err := r.owned(ctx, session, pluginID)
	if err != nil || len(p.Packages) == 0 {
		return Reference{}, false
	}
	k := p.reference()
	return Reference{PluginID: p.ID, PackageID: k.ID, Name: k.Name, Purpose: k.Purpose, CurrentPackageID: p.Current,
		NextPackageID: p.Next, ActiveRun: r.activeRun(p.ID), LatestRun: p.Latest}, true
}

package runner

import (
	"context"
	"crypto/subtle"
	"fmt"
)

// ReportArgs identify the live run a page reports on; Capability is the run's (from
// getClientCode), so only a page that loaded the run can report on it.
type ReportArgs struct {
	AgentID     string `json:"session"`
	PluginID    string `json:"pluginId"`
	PluginRunID string `json:"pluginRunId"`
	Capability  string `json:"capability"`
}

// liveFor returns the live run a report names, if the report may speak for it.
func (r *Runner) liveFor(ctx context.Context, a ReportArgs) (*liveRun, Plugin, bool) {
	p, err := r.owned(ctx, a.AgentID, a.PluginID)
	if err != nil {
		return nil, p, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.live[a.PluginID]
	if l == nil || l.run == nil || l.run.id != a.PluginRunID || subtle.ConstantTimeCompare([]byte(a.Capability), []byte(l.run.capability)) != 1 {
		return nil, p, false
	}
	return l.run, p, true
}

// ReportRenderFailure records that the client half of a live run crashed while rendering
// (docs/dynamic-plugins.md, "A run attempt's status"). The run stays live and its status
// stays what it is: the failure is kept beside it (Attempt.RenderFailure), so later
// runtime failures are still reported. The first report of a run steers the owner. Reports
// that do not name the live run with its capability are dropped.
func (r *Runner) ReportRenderFailure(ctx context.Context, a ReportArgs, f RenderFailure) {
	run, p, ok := r.liveFor(ctx, a)
	if !ok {
		return
	}
	r.mu.Lock()
	_, _ = r.updateAttempt(ctx, p.ID, run.id, Change{}, func(at *Attempt) { at.RenderFailure = &f })
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
func (r *Runner) ReportClientGuardFailure(ctx context.Context, a ReportArgs, message, stack string) {
	run, p, ok := r.liveFor(ctx, a)
	if !ok {
		return
	}
	r.runtimeFailure(ctx, p.ID, run, "client-guard", fmt.Sprintf("The client guard of %s (%s) rejected runtime code: %s%s\nThe Plugin remains running. Define a fix with cordis_define on %s and cordis_run it with mode \"update\".",
		p.ID, run.id, message, withStack(stack), p.ID))
}

// PackageRow describes a Package without its source.
type PackageRow struct {
	PackageID     string `json:"packageId"`
	Name          string `json:"name"`
	Purpose       string `json:"purpose"`
	HasHostHalf   bool   `json:"hasHostHalf"`
	HasClientHalf bool   `json:"hasClientHalf"`
}

// ActiveRun names the live run.
type ActiveRun struct {
	PluginRunID string `json:"pluginRunId"`
	PackageID   string `json:"packageId"`
}

func packageRows(p Plugin) []PackageRow {
	rows := make([]PackageRow, 0, len(p.Packages))
	for _, k := range p.Packages {
		rows = append(rows, PackageRow{PackageID: k.ID, Name: k.Name, Purpose: k.Purpose, HasHostHalf: k.HasHost(), HasClientHalf: k.HasClient()})
	}
	return rows
}

// activeRun returns the live run of Plugin id, or nil.
func (r *Runner) activeRun(id string) *ActiveRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.live[id]; l != nil && l.run != nil {
		return &ActiveRun{PluginRunID: l.run.id, PackageID: l.run.pkg}
	}
	return nil
}

// Summary is one Plugin of the calling session as cordis_inspect_self lists it.
type Summary struct {
	PluginID         string       `json:"pluginId"`
	Name             string       `json:"name"`
	PackageCount     int          `json:"packageCount"`
	State            string       `json:"state"`
	CurrentPackageID string       `json:"currentPackageId,omitempty"`
	NextPackageID    string       `json:"nextPackageId,omitempty"`
	ActiveRun        *ActiveRun   `json:"activeRun,omitempty"`
	PendingApproval  *RunInput    `json:"pendingApproval,omitempty"`
	LatestRun        *Attempt     `json:"latestRun,omitempty"`
	Packages         []PackageRow `json:"packages,omitempty"`
	// Restored is Plugin.Restored: a durable Store read the Plugin back at boot.
	Restored bool `json:"restored,omitempty"`
	// BootRestart is what the runner did at boot for the Plugin (Runner.BootRestart),
	// nil when it did not restart it.
	BootRestart *BootRestart `json:"bootRestart,omitempty"`
}

// ListPlugins lists the calling session's Plugins in creation order, each with its latest
// run and diagnostics.
func (r *Runner) ListPlugins(ctx context.Context) ([]Summary, error) {
	ls, err := r.listings(ctx)
	if err != nil {
		return nil, err
	}
	runs := r.activeRuns(ls)
	out := make([]Summary, 0, len(ls))
	for i, l := range ls {
		out = append(out, r.summarize(l, runs[i]))
	}
	return out, nil
}

// activeRuns returns the live run of each of ls, in order (nil for one that has none),
// read under one lock into one allocation however many Plugins are listed.
func (r *Runner) activeRuns(ls []Listing) []*ActiveRun {
	runs := make([]ActiveRun, len(ls))
	out := make([]*ActiveRun, len(ls))
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, p := range ls {
		if l := r.live[p.ID]; l != nil && l.run != nil {
			runs[i] = ActiveRun{PluginRunID: l.run.id, PackageID: l.run.pkg}
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

// InspectPlugin describes one Plugin of the calling session with its Packages (no source).
func (r *Runner) InspectPlugin(ctx context.Context, pluginID string) (Summary, error) {
	session, err := r.session(ctx)
	if err != nil {
		return Summary{}, err
	}
	p, err := r.owned(ctx, session, pluginID)
	if err != nil {
		return Summary{}, err
	}
	s := r.summary(p.Listing())
	s.Packages = packageRows(p)
	return s, nil
}

// PackageView is one Package of the calling session with its source and runtime state.
type PackageView struct {
	Plugin    Summary   `json:"plugin"`
	PackageID string    `json:"packageId"`
	Name      string    `json:"name"`
	Purpose   string    `json:"purpose"`
	Code      Code      `json:"code"`
	Host      HostState `json:"host"`
	Client    Half      `json:"client"`
}

// InspectPackage describes one Package with its source, and its halves' state: live when
// it is the running Package, else from the latest attempt of this Package.
func (r *Runner) InspectPackage(ctx context.Context, pluginID, packageID string) (PackageView, error) {
	session, err := r.session(ctx)
	if err != nil {
		return PackageView{}, err
	}
	p, err := r.owned(ctx, session, pluginID)
	if err != nil {
		return PackageView{}, err
	}
	k, ok := p.Package(packageID)
	if !ok {
		return PackageView{}, refuse(ReasonPackageMissing, "package %q does not exist on plugin %s; cordis_inspect_self {pluginId:%q} lists its packages", packageID, p.ID, p.ID)
	}
	v := PackageView{Plugin: r.summary(p.Listing()), PackageID: k.ID, Name: k.Name, Purpose: k.Purpose,
		Host: HostState{Status: HalfAbsent, Provides: []string{}, WaitingFor: []string{}}, Client: Half{Status: HalfAbsent, WaitingFor: []string{}}}
	if k.HasHost() {
		v.Code.Host, v.Host.Status = ptr(k.Host), HalfStopped
	}
	if k.HasClient() {
		v.Code.Client, v.Client.Status = ptr(k.Client), HalfStopped
	}
	if a := p.Latest; a != nil && a.PackageID == k.ID {
		v.Host.Status, v.Host.WaitingFor, v.Host.Error, v.Client = a.Host.Status, nonNil(a.Host.WaitingFor), a.Host.Error, a.Client
	}
	r.mu.Lock()
	var run *liveRun
	if l := r.live[p.ID]; l != nil && l.run != nil && l.run.pkg == k.ID {
		run = l.run
	}
	r.mu.Unlock()
	if run != nil && run.host != nil {
		v.Host = hostState(ctx, run)
	}
	return v, nil
}

// summary derives a Plugin's summary from its listing; rejected, cancelled and expired
// stay distinct, and a Plugin whose working run outlived a later attempt reads running.
func (r *Runner) summary(p Listing) Summary {
	return r.summarize(p, r.activeRun(p.ID))
}

// summarize is [Runner.summary] with the Plugin's live run, run (nil when it has none),
// already read.
func (r *Runner) summarize(p Listing, run *ActiveRun) Summary {
	s := Summary{PluginID: p.ID, Name: p.Name, PackageCount: p.PackageCount, CurrentPackageID: p.Current,
		NextPackageID: p.Next, ActiveRun: run, LatestRun: p.Latest, Restored: p.Restored}
	if b, ok := r.BootRestart(p.ID); ok {
		s.BootRestart = ptr(b) // a copy only when there is one: &b would move b to the heap for every Plugin
	}
	a := p.Latest
	switch {
	case a == nil || a.Status == StatusStopped:
		switch {
		case s.ActiveRun != nil:
			s.State = "running"
		case p.Current != "":
			s.State = "stopped"
		default:
			s.State = "defined"
		}
	case a.Status == StatusStartingHost || a.Status == StatusClientPending:
		s.State = "client-pending"
		if !p.LatestHasClient {
			s.State = "starting"
		}
	case s.ActiveRun != nil && a.Status.ended():
		// A restart that failed or was declined, cancelled or expired left the working run
		// running: the Plugin runs, and LatestRun says what became of the attempt.
		s.State = "running"
	default:
		s.State = string(a.Status)
	}
	if a != nil && a.Status == StatusAwaitingApproval {
		s.PendingApproval = &RunInput{PluginID: p.ID, PackageID: a.PackageID, Mode: a.Mode}
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
	PluginID         string     `json:"pluginId"`
	PackageID        string     `json:"packageId"`
	Name             string     `json:"name"`
	Purpose          string     `json:"purpose"`
	CurrentPackageID string     `json:"currentPackageId,omitempty"`
	NextPackageID    string     `json:"nextPackageId,omitempty"`
	ActiveRun        *ActiveRun `json:"activeRun,omitempty"`
	LatestRun        *Attempt   `json:"latestRun,omitempty"`
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

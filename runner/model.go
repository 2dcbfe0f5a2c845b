package runner

import "slices"

// Mode is how a run starts a Package: run (the first activation, a restart, a retry or a
// rollback to the current Package) or update (a switch to a Package other than the current).
type Mode string

// The two modes.
const (
	ModeRun    Mode = "run"
	ModeUpdate Mode = "update"
)

// Status is the status of one activation attempt (spec §3, §7). Rejected, cancelled and
// expired are distinct: the user declined, a stop or undefine cancelled, or nobody answered
// before the deadline.
type Status string

// Attempt statuses.
const (
	StatusAwaitingApproval Status = "awaiting-approval"
	StatusStartingHost     Status = "starting-host"
	StatusClientPending    Status = "client-pending"
	StatusRunning          Status = "running"
	StatusWaiting          Status = "waiting"
	StatusRejected         Status = "rejected"
	StatusFailed           Status = "failed"
	StatusCancelled        Status = "cancelled"
	StatusExpired          Status = "expired"
	StatusStopped          Status = "stopped"
)

// ended reports whether s is an attempt that ended without running: rejected, failed,
// cancelled or expired.
func (s Status) ended() bool {
	return s == StatusRejected || s == StatusFailed || s == StatusCancelled || s == StatusExpired
}

// HalfStatus is the state of one half (host or client) of an attempt.
type HalfStatus string

// Half statuses.
const (
	HalfAbsent  HalfStatus = "absent"
	HalfPending HalfStatus = "pending"
	HalfStopped HalfStatus = "stopped"
	HalfRunning HalfStatus = "running"
	HalfWaiting HalfStatus = "waiting"
	HalfFailed  HalfStatus = "failed"
)

// Phase names where an attempt failed.
type Phase string

// Failure phases.
const (
	PhaseApproval     Phase = "approval"
	PhaseHostLoad     Phase = "host-load"
	PhaseHostApply    Phase = "host-apply"
	PhaseClientLoad   Phase = "client-load"
	PhaseClientApply  Phase = "client-apply"
	PhaseClientRender Phase = "client-render"
)

// A Package is one immutable source version of a Plugin. A half is present when its code
// is not empty; define refuses blank halves, so "" always means absent.
type Package struct {
	ID      string `json:"packageId"`
	Name    string `json:"name"`
	Purpose string `json:"purpose"`
	Host    string `json:"host,omitempty"`
	Client  string `json:"client,omitempty"`
}

// HasHost reports whether the Package has a host half.
func (p Package) HasHost() bool { return p.Host != "" }

// HasClient reports whether the Package has a client half.
func (p Package) HasClient() bool { return p.Client != "" }

// Grants are the authorisations a person gave to run a Plugin's gated halves: single
// Packages (approve once, or a direct run from the panel) and, with Future, every Package
// of the Plugin (approve for future versions). Both can be revoked.
type Grants struct {
	Packages []string `json:"packages,omitempty"`
	Future   bool     `json:"future,omitempty"`
}

// Covers reports whether the grants authorise Package id.
func (g Grants) Covers(id string) bool { return g.Future || slices.Contains(g.Packages, id) }

// A Half is the state of one half of an attempt.
type Half struct {
	Status     HalfStatus `json:"status"`
	WaitingFor []string   `json:"waitingFor"`
	Error      string     `json:"error,omitempty"`
}

// A Diagnostic says where and why an attempt failed.
type Diagnostic struct {
	Phase       Phase  `json:"phase"`
	Message     string `json:"message"`
	Stack       string `json:"stack,omitempty"`
	PluginID    string `json:"pluginId"`
	PackageID   string `json:"packageId"`
	PluginRunID string `json:"pluginRunId"`
}

// A RenderFailure is a page's report that the client half of a live run crashed while
// rendering. It is kept apart from the attempt's status: the run is still live.
type RenderFailure struct {
	Slot      string `json:"slot"`
	Message   string `json:"message"`
	Stack     string `json:"stack,omitempty"`
	Abdicated bool   `json:"abdicated"`
}

// An Attempt records the most recent activation attempt of a Plugin, kept apart from the
// physical run so a failure stays readable after the run is gone.
type Attempt struct {
	PluginRunID       string         `json:"pluginRunId"`
	PackageID         string         `json:"packageId"`
	Mode              Mode           `json:"mode"`
	Status            Status         `json:"status"`
	ApprovalRequestID string         `json:"approvalRequestId,omitempty"`
	RequiresApproval  bool           `json:"requiresApproval,omitempty"`
	Host              Half           `json:"host"`
	Client            Half           `json:"client"`
	Error             *Diagnostic    `json:"error,omitempty"`
	RenderFailure     *RenderFailure `json:"renderFailure,omitempty"`
}

func (a *Attempt) clone() *Attempt {
	if a == nil {
		return nil
	}
	c := *a
	c.Host.WaitingFor = slices.Clone(a.Host.WaitingFor)
	c.Client.WaitingFor = slices.Clone(a.Client.WaitingFor)
	if a.Error != nil {
		e := *a.Error
		c.Error = &e
	}
	if a.RenderFailure != nil {
		f := *a.RenderFailure
		c.RenderFailure = &f
	}
	return &c
}

// A Plugin is a stable dynamic-plugin instance owned by one session: its Packages in define
// order, its version pointers, its grants and its latest attempt. The live run is not part
// of it (it is never stored).
type Plugin struct {
	ID       string    `json:"pluginId"`
	Session  string    `json:"session"`
	Packages []Package `json:"packages"`
	// Current is the last Package whose activation completed; Next the target being
	// approved, attempted, waited for or failed most recently. "" means none.
	Current string   `json:"currentPackageId,omitempty"`
	Next    string   `json:"nextPackageId,omitempty"`
	Grants  Grants   `json:"grants"`
	Latest  *Attempt `json:"latestRun,omitempty"`
	// Running says that a run of Current was committed and live when the runner last
	// wrote this record: set when a run commits, cleared when a run is retracted while the
	// runner lives (stop, expiry, a failed update), kept when the runner shuts down or
	// the process dies. Options.RestartAtBoot restarts these Plugins.
	Running bool `json:"running,omitempty"`
	// Restored says that the Plugin was defined by an earlier process and read back by
	// a durable Store when it opened. It is not stored.
	Restored bool `json:"restored,omitempty"`
}

// Package returns the Package with id.
func (p *Plugin) Package(id string) (Package, bool) {
	for _, k := range p.Packages {
		if k.ID == id {
			return k, true
		}
	}
	return Package{}, false
}

// reference is the Package a Plugin is known by: next, else current, else the last defined.
func (p *Plugin) reference() Package {
	for _, id := range []string{p.Next, p.Current} {
		if k, ok := p.Package(id); ok && id != "" {
			return k
		}
	}
	if len(p.Packages) == 0 {
		return Package{}
	}
	return p.Packages[len(p.Packages)-1]
}

// Clone returns a deep copy (Package sources are shared: strings are immutable).
func (p Plugin) Clone() Plugin {
	p.Packages = slices.Clone(p.Packages)
	p.Grants.Packages = slices.Clone(p.Grants.Packages)
	p.Latest = p.Latest.clone()
	return p
}

package runner

import (
	"slices"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// ended reports whether s is an attempt that ended without running: rejected, failed,
// cancelled or expired.
func ended(s dynamic.RunStatus) bool {
	return s == dynamic.RunRejected || s == dynamic.RunFailed || s == dynamic.RunCancelled || s == dynamic.RunExpired
}

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
// Packages (the panel's "Approve this version", or a direct run from the panel), which
// hold for every later run of that Package, after a restart too, and, with Future, every
// Package of the Plugin ("Approve this and future versions"). Both last until revoked
// (Runner.RevokeGrant; the panel lists them with Revoke).
type Grants struct {
	Packages []string `json:"packages,omitempty"` // Packages granted one by one (approved, or run from the panel)
	Future   bool     `json:"future,omitempty"`   // every Package of the Plugin is granted, later ones too
}

// Covers reports whether the grants authorise Package id.
func (g Grants) Covers(id string) bool { return g.Future || slices.Contains(g.Packages, id) }

// startStatus is what a start that left its attempt at s answers: running or waiting
// once it runs, starting while a page must still act.
func startStatus(s dynamic.RunStatus) dynamic.StartStatus {
	switch s {
	case dynamic.RunRunning:
		return dynamic.StartRunning
	case dynamic.RunWaiting:
		return dynamic.StartWaiting
	case dynamic.RunAwaitingApproval:
		return dynamic.StartAwaitingApproval
	}
	return dynamic.StartStarting
}

// cloneAttempt returns a deep copy of a (nil for nil).
func cloneAttempt(a *dynamic.Attempt) *dynamic.Attempt {
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
	Current string           `json:"currentPackageId,omitempty"`
	Next    string           `json:"nextPackageId,omitempty"`
	Grants  Grants           `json:"grants"`
	Latest  *dynamic.Attempt `json:"latestRun,omitempty"`
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
	p.Latest = cloneAttempt(p.Latest)
	return p
}

package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// ErrNotFound reports a Plugin the Store does not hold (never defined, or undefined).
var ErrNotFound = errors.New("runner: no such plugin")

// A Store keeps the definition registry: Plugins, their immutable Packages, version
// pointers, grants, latest attempts and the id counters. The Runner keeps only what cannot
// outlive the process (live runs, handler tables, pending requests and their deadlines)
// and calls the Store once per atomic change, so a durable Store can make each call one
// transaction: a call that returns an error must have changed nothing, and a call that
// returns nil must have made its whole change visible to every later read.
//
// The Runner serializes its calls for one Plugin, but may call for different Plugins
// concurrently; a Define that adds a Package to a Plugin may come beside another call
// for that Plugin (an Update, a Remove), and must be one change against it, as each
// call is. Reads return copies the caller may keep.
//
// NewMemoryStore returns the default, in-memory Store.
type Store interface {
	// Define records one Package. With d.Prefix set it mints a Plugin id "<prefix>-N" and
	// creates the Plugin owned by d.Session; otherwise it adds to Plugin d.PluginID, which
	// must exist and be owned by d.Session (else ErrNotFound). Either way it mints the
	// Package id "pkg-N". The Plugin, the Package and both counters change together or
	// not at all: a failed Define consumes no number.
	//
	// Past d's caps ([Definition.Admit], after the ErrNotFound check) it returns the
	// *CapError and records nothing. The count and the define are one change, so defines
	// made at once — by one Runner or by several processes on one durable Store — never
	// together take a session past a cap.
	//
	// It returns the Plugin's [Listing] after the define and the new Package: never the
	// Plugin's other Packages, so that a define costs the same however many versions the
	// Plugin has (read them with Plugin).
	Define(ctx context.Context, d Definition) (Listing, Package, error)
	// Plugin returns the Plugin with id, or ErrNotFound.
	Plugin(ctx context.Context, id string) (Plugin, error)
	// Plugins returns the Plugins owned by session in creation order; "" means every
	// session's.
	Plugins(ctx context.Context, session string) ([]Plugin, error)
	// Listings returns what Plugins does, each Plugin as its [Plugin.Listing], without
	// copying a Package: a listing costs the same per Plugin however many Packages each has.
	Listings(ctx context.Context, session string) ([]Listing, error)
	// Update applies c to Plugin id as one change and returns the result. A pointer or a
	// grant naming a Package the Plugin does not have is an error, and nothing changes.
	Update(ctx context.Context, id string, c Change) (Plugin, error)
	// Remove deletes Plugin id with its Packages, grants and pointers. Its ids are never
	// minted again.
	Remove(ctx context.Context, id string) error
	// Mint returns the next id of counter k: "run-N" or "approval-N". Counters never go
	// back, so an id is never reused (a durable Store persists them, so not across
	// restarts either).
	Mint(ctx context.Context, k Counter) (string, error)
}

// A Listing is what a list of Plugins shows of one (cordis_inspect_self {}): the Plugin
// without its Packages and grants, the number of its Packages, and the facts of the
// Packages the list names.
type Listing struct {
	ID      string
	Session string
	// Name is the name of the reference Package: next, else current, else the last defined.
	Name          string
	PackageCount  int
	Current, Next string
	Latest        *dynamic.Attempt
	// LatestHasClient says whether the Package of Latest has a client half.
	LatestHasClient bool
	Restored        bool
}

// Listing returns the [Listing] of p, as every Store's Listings does (so they agree); its
// Latest is a copy.
func (p *Plugin) Listing() Listing { return p.listing().Clone() }

// listing is [Plugin.Listing] sharing p's latest attempt.
func (p *Plugin) listing() Listing {
	l := Listing{ID: p.ID, Session: p.Session, Name: p.reference().Name, PackageCount: len(p.Packages),
		Current: p.Current, Next: p.Next, Latest: p.Latest, Restored: p.Restored}
	if p.Latest != nil {
		l.LatestHasClient = p.hasClient(p.Latest.PackageID)
	}
	return l
}

// Clone returns a copy of l that shares nothing with it.
func (l Listing) Clone() Listing {
	l.Latest = cloneAttempt(l.Latest)
	return l
}

// A Definition is what Store.Define records: a new Plugin (Prefix set) or a new Package of
// an existing one (PluginID set), with the Package's fields already validated.
type Definition struct {
	Session  string
	Prefix   string
	PluginID string
	Name     string
	Purpose  string
	Host     string
	Client   string
	// MaxPlugins and MaxPackages, when above zero, cap what Session may hold: Define
	// counts the session's Plugins and Packages as it records and refuses past them (see
	// Admit). The Runner sets them from Options.MaxPluginsPerSession and
	// MaxPackagesPerSession.
	MaxPlugins, MaxPackages int
}

// Admit is the caps' rule every Store applies, given what d.Session holds: nil, or the
// *CapError that refuses d — a new Plugin when the session holds MaxPlugins Plugins, any
// Package when it holds MaxPackages Packages. Plugins held past a cap lowered since all
// stay; only new definitions are refused.
func (d Definition) Admit(plugins, packages int) error {
	switch {
	case d.Prefix != "" && d.MaxPlugins > 0 && plugins >= d.MaxPlugins:
		return &CapError{Cap: CapPlugins, Plugins: plugins, Packages: packages}
	case d.MaxPackages > 0 && packages >= d.MaxPackages:
		return &CapError{Cap: CapPackages, Plugins: plugins, Packages: packages}
	}
	return nil
}

// A CapError is Store.Define's refusal of a Definition past one of its caps: nothing was
// recorded and no number consumed.
type CapError struct {
	Cap Cap // the cap the define would pass
	// Plugins and Packages are what the session held when the define was counted.
	Plugins, Packages int
}

// Cap names one of a Definition's caps.
type Cap string

// The caps of a Definition.
const (
	CapPlugins  Cap = "plugins"  // Definition.MaxPlugins
	CapPackages Cap = "packages" // Definition.MaxPackages
)

func (e *CapError) Error() string {
	return fmt.Sprintf("runner: the session is at its cap of %s: it holds %d Plugins and %d Packages", e.Cap, e.Plugins, e.Packages)
}

// A Change is one atomic update of a Plugin. Unset fields change nothing.
type Change struct {
	// Attempt, if not nil, replaces the latest attempt.
	Attempt *dynamic.Attempt
	// Current and Next, if not nil, move a version pointer ("" clears it).
	Current, Next *string
	// Grant adds a per-Package grant; Revoke removes one.
	Grant, Revoke string
	// Future, if not nil, sets or clears the grant for future versions.
	Future *bool
	// Running, if not nil, sets or clears Plugin.Running.
	Running *bool
}

// Counter names an id counter the Store keeps besides the Plugin and Package counters,
// which Define advances.
type Counter string

// The counters Mint advances.
const (
	CounterRun      Counter = "run"
	CounterApproval Counter = "approval"
)

func ptr[T any](v T) *T { return &v }

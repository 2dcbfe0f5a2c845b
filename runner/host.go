package runner

import (
	"context"
	"encoding/json"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/internal/sandboxhost"
)

// A HostStarter starts host halves. The Runner calls it for every activation of a Package
// with a host half; NewSandboxHost is the real one (a run is a sandbox mount), and tests
// use doubles.
type HostStarter interface {
	// Start evaluates spec.Code and starts the plugin it returns as a child fiber of
	// parent, returning once it settled: active, or pending while an injected service is
	// missing (a parked run counts as started). A failure must leave nothing behind. Start
	// must return promptly once ctx is done: stop and undefine cancel a start in flight
	// through it.
	Start(ctx context.Context, parent *kit.Context, spec HostSpec) (HostRun, error)
}

// A CodeChecker checks a half's code at define time without running it. A HostStarter
// that implements it (the sandbox host does) makes define refuse code that does not
// parse; half is "code.host" or "code.client", and names the half in the error.
type CodeChecker interface {
	Check(half, code string) error
}

// HostSpec is what a HostStarter starts.
type HostSpec struct {
	PluginID string // "clock-1": tags the half's console output
	// Session owns the Plugin: the half must run in a fiber of that session
	// (kit.Plugin.Session), so that what it registers is its session's alone and it hears
	// no other session's events (the kit package doc, "Sessions").
	Session string
	// Shares lists the service keys the half provides to every session
	// (Options.SharedServices, kit.Plugin.Shares).
	Shares      []string
	PackageID   string
	PluginRunID string
	Code        string
}

// A HostRun is one started host half: its fiber's state, its handler table and its stop.
type HostRun interface {
	// WaitingFor returns the injected services that are missing (the run is parked).
	WaitingFor() []string
	// Provides returns the services the half provides, sorted.
	Provides() []string
	// Handlers returns the method names in the half's handler table, sorted.
	Handlers(ctx context.Context) []string
	// Invoke calls handler method with JSON args and returns its JSON result. A method
	// the table lacks is ErrMethodNotFound; any other error is the handler's failure.
	Invoke(ctx context.Context, method string, args json.RawMessage) (json.RawMessage, error)
	// Stop disposes the half and returns at quiescence: nothing it registered runs again.
	Stop(ctx context.Context) error
}

// ErrMethodNotFound is what HostRun.Invoke returns for a method its table lacks.
var ErrMethodNotFound = sandboxhost.ErrMethodNotFound

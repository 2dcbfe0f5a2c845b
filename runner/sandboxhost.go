package runner

import (
	"context"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/internal/sandboxhost"
	"github.com/cordiskit/cordiskit/sandbox"
)

// SandboxHost is the HostStarter that runs host halves in the sandbox: a run is a mount.
// Start compiles the half, evaluates it in a fresh realm (sandbox.Sandbox.Run: the body, its
// promise and the plugin shape checked), starts the plugin as a child fiber of the
// runner's group (sandbox.Mount.Start: apply with the ctx façade, rolled back on failure)
// and reads the half's handler table through the realm. Every entry is bounded by the
// sandbox's Timeouts. A half runs in its Plugin's session's engine of the sandbox
// (HostSpec.Session as sandbox.RunOptions.Session; the sandbox package doc, "Engines per
// session"): its JavaScript waits for no other session's, and the engine goes when the
// session's last run (or mount of the same sandbox) stops.
//
// It is the runner's face of runner/internal/sandboxhost, where the host half's sandbox
// lives: its harness, its handler table and its checks.
type SandboxHost struct{ h *sandboxhost.Host }

// NewSandboxHost returns a SandboxHost on a sandbox of its own, configured by opts (nil means
// defaults: no façade). Close it after the runner that uses it.
func NewSandboxHost(opts *sandbox.Options) *SandboxHost {
	return &SandboxHost{sandboxhost.New(opts, DefaultMaxHandlersPerRun)}
}

// SetMaxHandlersPerRun bounds the handlers one run's harness.handle holds at once; a
// registration past it throws a TypeError in the half that says so. n <= 0 means
// DefaultMaxHandlersPerRun. It applies to the runs started after it; New calls it with
// Options.MaxHandlersPerRun on the host it builds.
func (h *SandboxHost) SetMaxHandlersPerRun(n int) {
	if n <= 0 {
		n = DefaultMaxHandlersPerRun
	}
	h.h.SetMaxHandlers(n)
}

// Close closes the host's sandbox; see sandbox.Sandbox.Close.
func (h *SandboxHost) Close(ctx context.Context) error { return h.h.Close(ctx) }

// Loop returns the sandbox host halves run on.
func (h *SandboxHost) Loop() *sandbox.Sandbox { return h.h.Sandbox() }

// Check parses code as the body of an async function without compiling or running it,
// with the sandbox's own checks and teaching errors (sandbox.Sandbox.Parse). A let, const or
// class name declared twice in the body's own scope, or also as a var or function there,
// is an error the parser leaves to the compiler: such code is compiled, so the define
// answers with the error its run would give. A host half that
// declares `harness` in its function scope (var, let, const, function or class,
// destructuring too), where it would shadow the harness it is given, is refused here
// rather than failing obscurely at run time. The parsed host half is kept for a Start of
// the same code, which then compiles it without parsing it again.
func (h *SandboxHost) Check(half, code string) error { return h.h.Check(half, code) }

// Start implements HostStarter. The half gets `harness` natively (sandbox.RunOptions): its
// handle records into this run's handler table; a method the table lacks is
// ErrMethodNotFound.
func (h *SandboxHost) Start(ctx context.Context, parent *kit.Context, spec HostSpec) (HostRun, error) {
	run, err := h.h.Start(ctx, parent, sandboxhost.Spec{PluginID: spec.PluginID, Session: spec.Session, Shares: spec.Shares, Code: spec.Code})
	if err != nil {
		return nil, err
	}
	return run, nil
}

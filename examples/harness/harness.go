package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/cordiskit/cordiskit/examples/harness/agent"
	"github.com/cordiskit/cordiskit/examples/harness/cordisapi"
	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A harness is the runtime with the cordis tools wired in: what an agent loop or an MCP
// client drives. It offers both sets: the toolset's three (cordis_inspect, cordis_mount,
// cordis_unmount: throw-away mounts) and the runner's seven (cordis_define, cordis_run,
// …: versioned dynamic Plugins owned by a session).
type harness struct {
	rt *agent.Runtime
	ts *toolset.Toolset
	r  *runner.Runner

	session func(*mcp.ServerSession) string // the MCP client's session name; nil: mcp-N
}

// boot starts the runtime rooted in the work directory dir, keeping its own state in
// stateDir (outside dir), then the toolset and the dynamic-plugin runner beside it, both
// with the runtime's generated catalog and façade. The runtime's tools/pre-execute gate
// runs with both GateContexts, so listeners that mounts or host halves wrote never stand
// between the model and the cordis tools. Close it when done.
func boot(dir, stateDir string, logger *slog.Logger) (*harness, error) {
	return bootWith(dir, stateDir, logger, nil)
}

// bootWith is boot with the runner's definitions in store (nil: in memory); a durable
// store also restarts, at boot, the Plugins that were running at the last shutdown.
func bootWith(dir, stateDir string, logger *slog.Logger, store runner.Store) (*harness, error) {
	rt, err := agent.New(&agent.Options{WorkDir: dir, StateDir: stateDir, Logger: logger})
	if err != nil {
		return nil, err
	}
	ts, err := toolset.New(rt.Context(), &toolset.Options{
		Catalog: cordisapi.Catalog,
		Facade:  cordisapi.Facade,
		Logger:  logger,
	})
	if err != nil {
		return nil, errors.Join(err, rt.Close(context.Background()))
	}
	r, err := newRunner(rt, logger, store)
	if err != nil {
		return nil, errors.Join(err, ts.Dispose(context.Background()), rt.Close(context.Background()))
	}
	rt.SetGateContext(func(ctx context.Context, tool string) context.Context {
		return r.GateContext(ts.GateContext(ctx, tool), tool)
	})
	return &harness{rt: rt, ts: ts, r: r}, nil
}

// newRunner starts the dynamic-plugin runner: its host halves get the same façade as
// mounts (the core tier and the runtime's services).
func newRunner(rt *agent.Runtime, logger *slog.Logger, store runner.Store) (*runner.Runner, error) {
	facade, err := sandbox.Merge(generated.Facade, cordisapi.Facade)
	if err != nil {
		return nil, err
	}
	return runner.New(rt.Context(), &runner.Options{Catalog: cordisapi.Catalog, Facade: facade, Logger: logger, Store: store, RestartAtBoot: store != nil})
}

// Close stops every Plugin and unmounts every mount, then shuts the runtime down (flushing
// the kv store).
func (h *harness) Close(ctx context.Context) error {
	return errors.Join(h.r.Dispose(ctx), h.ts.Dispose(ctx), h.rt.Close(ctx))
}

// mcpOptions configures the MCP server: each client session is its own session (the
// server's default ids, "mcp-N", which tools/pre-execute listeners see too), every call
// passes the runtime's tools/pre-execute gate first (the same gate as CallTool, control
// tools shielded from mount and host-half listeners), the runner's messages for a session
// ride on its client's next tool result, and output schemas that are not objects
// (cordis_inspect returns text) are left out, as MCP clients before 2026-07-28 require.
func (h *harness) mcpOptions() *mcpkit.Options {
	return &mcpkit.Options{
		Implementation:             &mcp.Implementation{Name: "cordiskit-harness", Version: "dev"},
		OmitNonObjectOutputSchemas: true,
		Messages:                   h.r,
		Session:                    h.session,
		Before: func(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
			session, _ := kit.SessionFrom(ctx)
			return h.rt.Gate(ctx, session, tool, args)
		},
	}
}

// serveMCP serves the runtime's tools over t until the client goes away or ctx is done.
func serveMCP(ctx context.Context, h *harness, t mcp.Transport) error {
	return mcpkit.Serve(ctx, h.rt.Context(), t, h.mcpOptions())
}

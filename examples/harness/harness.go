package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/cordiskit/cordiskit"
	"github.com/cordiskit/cordiskit/examples/harness/agent"
	"github.com/cordiskit/cordiskit/examples/harness/cordisapi"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A harness is the runtime with the cordis tools wired in by cordiskit.New: what an agent
// loop or an MCP client drives. It offers both sets: the toolset's three (cordis_inspect,
// cordis_mount, cordis_unmount: throw-away mounts) and the runner's seven (cordis_define,
// cordis_run, …: versioned dynamic Plugins owned by a session).
type harness struct {
	rt     *agent.Runtime
	cordis *cordiskit.Runtime
	r      *runner.Runner // cordis.Runner()
}

// boot starts the runtime rooted in the work directory dir, keeping its own state in
// stateDir (outside dir), with the cordis tools beside it. Close it when done.
func boot(dir, stateDir string, logger *slog.Logger) (*harness, error) {
	return bootWith(dir, stateDir, logger, nil)
}

// bootWith is boot with what opts asks for besides (a store, the panel, how MCP names
// sessions). It fills in the runtime's generated catalog and façade and its MCP options
// (mcpOptions), and runs the runtime's tools/pre-execute gate with the GateContext of
// both tool sets, so listeners that mounts or host halves wrote never stand between the
// model and the cordis tools.
func bootWith(dir, stateDir string, logger *slog.Logger, opts *cordiskit.Options) (*harness, error) {
	o := cordiskit.Options{}
	if opts != nil {
		o = *opts
	}
	rt, err := agent.New(&agent.Options{WorkDir: dir, StateDir: stateDir, Logger: logger})
	if err != nil {
		if o.PanelListener != nil {
			err = errors.Join(err, o.PanelListener.Close())
		}
		return nil, err
	}
	o.Catalog, o.Facade, o.Logger, o.MCP = cordisapi.Catalog, cordisapi.Facade, logger, mcpOptions(rt, o.MCP)
	c, err := cordiskit.New(rt.Context(), &o)
	if err != nil {
		return nil, errors.Join(err, rt.Close(context.Background()))
	}
	rt.SetGateContext(c.GateContext)
	return &harness{rt: rt, cordis: c, r: c.Runner()}, nil
}

// Close shuts the cordis pieces down (cordiskit.Runtime.Close), then the runtime
// (flushing the kv store).
func (h *harness) Close(ctx context.Context) error {
	return errors.Join(h.cordis.Close(ctx), h.rt.Close(ctx))
}

// mcpOptions completes o (nil: none) as the runtime serves MCP: each client session is
// its own session (the server's default ids, "mcp-N", which tools/pre-execute listeners
// see too) unless o names sessions, every call passes the runtime's tools/pre-execute
// gate first (the same gate as CallTool, control tools shielded from mount and host-half
// listeners), and output schemas that are not objects (cordis_inspect returns text) are
// left out, as MCP clients before 2026-07-28 require. The runner's messages for a
// session ride on its client's next tool result (cordiskit.Options.MCP).
func mcpOptions(rt *agent.Runtime, o *mcpkit.Options) *mcpkit.Options {
	out := mcpkit.Options{}
	if o != nil {
		out = *o
	}
	out.Implementation = &mcp.Implementation{Name: "cordiskit-harness", Version: "dev"}
	out.OmitNonObjectOutputSchemas = true
	out.Before = func(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
		session, _ := kit.SessionFrom(ctx)
		return rt.Gate(ctx, session, tool, args)
	}
	return &out
}

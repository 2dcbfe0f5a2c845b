package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/cordiskit/cordiskit/examples/harness/agent"
	"github.com/cordiskit/cordiskit/examples/harness/cordisapi"
	"github.com/cordiskit/cordiskit/kit/mcpkit"
	"github.com/cordiskit/cordiskit/kit/toolset"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A harness is the runtime with the cordis tools wired in: what an agent loop or an MCP
// client drives.
type harness struct {
	rt *agent.Runtime
	ts *toolset.Toolset
}

// boot starts the runtime rooted in the work directory dir, keeping its own state in
// stateDir (outside dir), and the toolset with the runtime's generated catalog and façade.
// The runtime's tools/pre-execute gate runs with the toolset's GateContext, so listeners
// that mounts wrote never stand between the model and the cordis tools. Close it when
// done.
func boot(dir, stateDir string, logger *slog.Logger) (*harness, error) {
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
	rt.SetGateContext(ts.GateContext)
	return &harness{rt: rt, ts: ts}, nil
}

// Close unmounts every mount, then shuts the runtime down (flushing the kv store).
func (h *harness) Close(ctx context.Context) error {
	return errors.Join(h.ts.Dispose(ctx), h.rt.Close(ctx))
}

// mcpSession is the session name tools/pre-execute listeners see for calls over MCP.
const mcpSession = "mcp"

// mcpOptions configures the MCP server: every call passes the runtime's tools/pre-execute
// gate first (the same gate as CallTool, control tools shielded from mount listeners), and
// output schemas that are not objects (cordis_inspect returns text) are
// left out, as MCP clients before 2026-07-28 require.
func (h *harness) mcpOptions() *mcpkit.Options {
	return &mcpkit.Options{
		Implementation:             &mcp.Implementation{Name: "cordiskit-harness", Version: "dev"},
		OmitNonObjectOutputSchemas: true,
		Before: func(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
			return h.rt.Gate(ctx, mcpSession, tool, args)
		},
	}
}

// serveMCP serves the runtime's tools over t until the client goes away or ctx is done.
func serveMCP(ctx context.Context, h *harness, t mcp.Transport) error {
	return mcpkit.Serve(ctx, h.rt.Context(), t, h.mcpOptions())
}

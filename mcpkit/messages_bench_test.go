package mcpkit_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkToolCallMessages: one tools/call of echo over in-memory transports with a
// result of 16 KiB of text: without a MessageSource (the floor), with one that keeps
// nothing for the session (what every call pays), and with one message kept for each
// call (what delivering a message costs).
func BenchmarkToolCallMessages(b *testing.B) {
	text := strings.Repeat("a", 16<<10)
	for _, bc := range []struct {
		name     string
		source   bool
		messages int
	}{{"no-source", false, 0}, {"nothing-kept", true, 0}, {"one-message", true, 1}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			defer root.Fiber().Dispose(ctx)
			reg, _ := kit.ToolsService.Get(root)
			if f := root.Plugin(&kit.Plugin{Name: "echo", Apply: func(c *kit.Context) error {
				_, err := reg.Register(c, echo())
				return err
			}}); f.Err() != nil {
				b.Fatal(f.Err())
			}
			src := newFakeSource()
			opts := &mcpkit.Options{Session: func(*mcp.ServerSession) string { return "alice" }}
			if bc.source {
				opts.Messages = src
			}
			s, err := mcpkit.NewServer(root, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close(ctx)
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.MCP().Connect(ctx, st, nil)
			if err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { cs.Close(); ss.Wait() }()
			params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}}
			b.ReportAllocs()
			for b.Loop() {
				for range bc.messages {
					src.send("alice", msg{"inject", "clock-1", "The user stopped clock-1 from the Cordis panel; its Packages remain. currentPackageId is pkg-1."})
				}
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError || len(res.Content) != 1+bc.messages {
					b.Fatal(err, res)
				}
			}
		})
	}
}

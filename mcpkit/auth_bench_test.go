package mcpkit_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/cordiskit/cordiskit/internal/tooltest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkHTTPToolCall: one tools/call of echo over streamable HTTP on loopback, with a
// bearer token (Origin check, token lookup by SHA-256, the SDK's RequireBearerToken and
// its per-session identity check) beside the same call with InsecureNoToken (the floor:
// the Origin check alone).
func BenchmarkHTTPToolCall(b *testing.B) {
	for _, bc := range []struct {
		name  string
		opts  *mcpkit.HTTPOptions
		token string
	}{
		{"token", &mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: aliceToken, Session: "alice"}, {Token: processToken}}}, aliceToken},
		{"no-token", &mcpkit.HTTPOptions{InsecureNoToken: true}, ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			defer root.Fiber().Dispose(context.Background())
			reg, _ := kit.ToolsService.Get(root)
			if f := root.Plugin(&kit.Plugin{Name: "echo", Apply: func(c *kit.Context) error {
				_, err := reg.Register(c, tooltest.Echo())
				return err
			}}); f.Err() != nil {
				b.Fatal(f.Err())
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- mcpkit.ServeHTTP(ctx, root, ln, &mcpkit.Options{HTTP: bc.opts}) }()
			defer func() {
				stop()
				if err := <-done; err != nil {
					b.Error(err)
				}
			}()
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			var rt http.RoundTripper = tr
			if bc.token != "" {
				rt = bearer{bc.token, tr}
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + mcpkit.HTTPPath, HTTPClient: &http.Client{Transport: rt}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}

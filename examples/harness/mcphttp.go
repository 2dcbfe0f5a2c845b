package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/cordiskit/cordiskit/mcpkit"
)

// listenMCP opens the listener of mcp -http ADDR and returns it with the endpoint's URL,
// before the runtime boots, so that the URL is on stderr ahead of anything the boot logs.
// An ADDR without a host (":8080") listens on loopback only.
func listenMCP(addr string) (net.Listener, string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("-http %s: %v; pass HOST:PORT such as 127.0.0.1:0", addr, err)
	}
	if host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("-http %s: %v; pass a free loopback address such as 127.0.0.1:0", addr, err)
	}
	return ln, "http://" + ln.Addr().String() + mcpkit.HTTPPath, nil
}

// serveMCPHTTP serves the runtime's tools on ln over MCP's streamable HTTP transport until
// ctx is done: every client that connects is its own session, all of them in this one
// runtime.
func serveMCPHTTP(ctx context.Context, h *harness, ln net.Listener, logger *slog.Logger) error {
	if ip, ok := ln.Addr().(*net.TCPAddr); ok && !ip.IP.IsLoopback() {
		logger.Warn("mcp: serving on a non-loopback address without authentication: anyone who reaches it can run code in this process", "addr", ln.Addr().String())
	}
	return mcpkit.ServeHTTP(ctx, h.rt.Context(), ln, h.mcpOptions())
}

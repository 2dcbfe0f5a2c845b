package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"slices"

	"github.com/cordiskit/cordiskit/mcpkit"
)

// mcpHTTP is what mcp -http serves on: its listener and URL, the process token (the
// operator's: each client that sends it is an ephemeral session of its own) and the
// per-person tokens of -session-tokens (each client that sends one is that session).
type mcpHTTP struct {
	ln       net.Listener
	url      string
	token    string
	source   tokenSource
	sessions []mcpkit.Token
	file     string // -session-tokens
}

// mcpTokenHelp ends every 401 of mcp -http: where a person finds a token.
const mcpTokenHelp = "the process token is on the server's stderr at start (or in its -http-token-file, or $" + mcpTokenEnv +
	"); a person's own token is their line in the server's -session-tokens file"

// listenMCP reads the tokens of mcp -http, then opens its listener, before the runtime
// boots, so that the line with the URL is on stderr ahead of anything the boot logs. An
// ADDR without a host (":8080") listens on loopback only.
func listenMCP(addr, tokenFile, sessionsFile string) (*mcpHTTP, error) {
	tok, src, err := resolveToken("-http-token-file", tokenFile, mcpTokenEnv)
	if err != nil {
		return nil, err
	}
	m := &mcpHTTP{token: tok, source: src, file: sessionsFile}
	if sessionsFile != "" {
		if m.sessions, err = loadSessionTokens(sessionsFile); err != nil {
			return nil, err
		}
		if slices.ContainsFunc(m.sessions, func(t mcpkit.Token) bool { return t.Token == tok }) {
			return nil, fmt.Errorf("-session-tokens %s lists the process token as a person's; give each person a token of their own", sessionsFile)
		}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("-http %s: %v; pass HOST:PORT such as 127.0.0.1:0", addr, err)
	}
	if host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	if m.ln, err = net.Listen("tcp", addr); err != nil {
		return nil, fmt.Errorf("-http %s: %v; pass a free loopback address such as 127.0.0.1:0", addr, err)
	}
	m.url = "http://" + m.ln.Addr().String() + mcpkit.HTTPPath
	return m, nil
}

// line is the first line about MCP on stderr: the endpoint and the header a client sends.
// A token made for this process is shown; one from a file or the environment is named.
func (m *mcpHTTP) line() string {
	return fmt.Sprintf("mcp: %s (Authorization: Bearer %s)", m.url, m.source.shown(m.token))
}

// options are the HTTP options of mcp -http: the process token, whose every client is
// an ephemeral session of its own, and the per-person tokens, each its session's.
func (m *mcpHTTP) options() *mcpkit.HTTPOptions {
	return &mcpkit.HTTPOptions{Tokens: append([]mcpkit.Token{{Token: m.token}}, m.sessions...), TokenHelp: mcpTokenHelp}
}

// close closes m's listener; a nil m (no -http) has none.
func (m *mcpHTTP) close() error {
	if m == nil {
		return nil
	}
	return m.ln.Close()
}

// serveMCPHTTP serves the runtime's tools on m's listener over MCP's streamable HTTP
// transport until ctx is done (it closes the listener): every client is the session its
// token proves (m.options, given to bootWith), all of them in this one runtime. durable
// says the runner keeps Plugins in a store, where only a named session finds them again.
func serveMCPHTTP(ctx context.Context, h *harness, m *mcpHTTP, logger *slog.Logger, durable bool) error {
	if ip, ok := m.ln.Addr().(*net.TCPAddr); ok && !ip.IP.IsLoopback() {
		logger.Warn("mcp: serving on a non-loopback address over plain HTTP: the bearer tokens cross the network in clear; serve on loopback, behind TLS", "addr", m.ln.Addr().String())
	}
	if len(m.sessions) > 0 {
		var names []string
		for _, t := range m.sessions {
			names = append(names, t.Session)
		}
		logger.Info("mcp: session tokens: a client that sends one is that session", "file", m.file, "sessions", names)
	}
	if durable {
		logger.Warn("mcp: a client with the process token is an ephemeral session of its own: its Plugins are not found after a restart. " +
			"For a session that keeps them, give the person a line \"NAME TOKEN\" in a file passed with -session-tokens FILE, and have their client send that token")
	}
	return h.cordis.ServeMCPHTTP(ctx, m.ln)
}

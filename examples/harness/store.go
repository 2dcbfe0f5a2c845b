package main

import (
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// storeFile is where the mcp command's -store keeps the runner's definitions
// (cordiskit.Options.StoreFile): in the state directory, like the kv store, because the
// fs service serves the work directory and a host half that injects fs must not be able
// to rewrite its own grants.
func storeFile(stateDir string) string { return filepath.Join(stateDir, "definitions.db") }

// sessionNamer names the stdio MCP client's session for the runner: name when set
// (-session), else, with durable definitions, the client's clientInfo.name, so the same
// client finds its Plugins after a restart; nil keeps mcpkit's per-connection ids. Over
// stdio the client is the process that started this one, so its name is its own to give.
// Over HTTP it is not used: there a client's bearer token names its session (see
// mcphttp.go), because any client can send any clientInfo.name.
func sessionNamer(name string, durable bool) func(*mcp.ServerSession) string {
	switch {
	case name != "":
		return func(*mcp.ServerSession) string { return name }
	case !durable:
		return nil
	}
	return func(ss *mcp.ServerSession) string {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return "mcp:" + p.ClientInfo.Name
		}
		return "mcp:client"
	}
}

package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// storeDSNEnv names the environment variable that gives -store-dsn's default: the place
// for a DSN that holds a password, since a command line is every local user's to read.
const storeDSNEnv = "CORDIS_STORE_DSN"

// storeDSNOf is the PostgreSQL DSN of the mcp command's definitions: flag (-store-dsn),
// else $CORDIS_STORE_DSN, else "" (none). A password in the flag is refused, since any
// local user reads a command line (ps); -store, which names a file, cannot go with it.
func storeDSNOf(flag string, storeFile bool) (string, error) {
	if flag != "" && dsnHasPassword(flag) {
		return "", fmt.Errorf("%w: mcp: -store-dsn holds a password, which every local user can read on the command line (ps); "+
			"drop it from the flag and put the whole DSN in $%s, or the password in $PGPASSWORD or ~/.pgpass", errUsage, storeDSNEnv)
	}
	dsn := flag
	if dsn == "" {
		dsn = os.Getenv(storeDSNEnv)
	}
	if dsn != "" && storeFile {
		return "", fmt.Errorf("%w: mcp: -store keeps the definitions in a file and -store-dsn (or $%s) in PostgreSQL; use one", errUsage, storeDSNEnv)
	}
	return dsn, nil
}

// dsnHasPassword reports whether dsn, a URL (postgres://user:pw@host/db) or keyword/value
// pairs (host=… password=…), names a password.
func dsnHasPassword(dsn string) bool {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		_, set := u.User.Password()
		return set || u.Query().Has("password")
	}
	for _, kv := range strings.Fields(dsn) {
		if k, _, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(k) == "password" {
			return true
		}
	}
	return false
}

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

// minStoreLease is the shortest -store-lease: a lease is renewed every third of it, and a
// process that stalls longer than that (a pause of the garbage collector, a loaded machine)
// loses its sessions' runs to another process.
const minStoreLease = time.Second

// storeLeaseOf is the mcp command's -store-lease, for pgstore.Options.LeaseTTL (0: the
// store's default): refused without a DSN, where there is no lease, and under
// minStoreLease.
func storeLeaseOf(fs *flag.FlagSet, lease time.Duration, dsn string) (time.Duration, error) {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "store-lease" })
	switch {
	case !set:
		return 0, nil
	case dsn == "":
		return 0, fmt.Errorf("%w: mcp: -store-lease is the lease of a session's runs among processes on one PostgreSQL database; it needs -store-dsn DSN (or $%s)", errUsage, storeDSNEnv)
	case lease < minStoreLease:
		return 0, fmt.Errorf("%w: mcp: -store-lease %v is under %v: a process renews its leases every third of it, and one that stalls longer (a garbage collection, a loaded machine) loses its sessions' runs to another process; use %v or more", errUsage, lease, minStoreLease, minStoreLease)
	}
	return lease, nil
}

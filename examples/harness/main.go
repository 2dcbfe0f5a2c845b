// Command harness is cordiskit's example agent runtime: the runtime in package agent (fs,
// exec and kv services; agent/turn-start, tools/pre-execute and session/flush events) with
// the three cordis mount tools and the seven tools of the dynamic-plugin runner wired in
// from its generated catalog and façade (package cordisapi).
//
// Usage:
//
//	go run ./examples/harness demo             # a scripted session, printed as a transcript
//	go run ./examples/harness prompt           # the system prompt an agent loop gives the model
//	go run ./examples/harness mcp [-dir DIR] [-state STATE] [-store | -store-dsn DSN [-store-lease DURATION]] [-session NAME] [-panel ADDR [-panel-token-file FILE]] # serve the runtime's tools over MCP on stdio
//	go run ./examples/harness mcp -http ADDR [-http-token-file FILE] [-session-tokens FILE] [-dir DIR] [-state STATE] [-store | -store-dsn DSN [-store-lease DURATION]] [-panel ADDR [-panel-token-file FILE]] # … to many clients over streamable HTTP
//	go run ./examples/harness panel [-addr ADDR] [-panel-token-file FILE] # the panel with a sample definition to try
//
// demo boots the runtime in a temporary work directory and plays a short session through
// the tools' public API — the calls an agent loop makes for a model: it inspects the api,
// mounts a plugin that registers a tool and listens to agent/turn-start, calls the tool,
// begins a turn, shows that the listener ran, makes a mount that fails, unmounts and
// inspects again; then it defines a dynamic Plugin with a host half, runs it, calls its
// tool, invokes its handler, takes a user's message that mentions the Plugin as @greet-1
// (the runtime adds the reference block after it), updates it to a new Package, stops and
// undefines it.
//
// prompt prints the system prompt an agent loop gives the model: the runtime's own part,
// then the dynamic-plugin runner's section.
//
// mcp serves the ten cordis tools and every tool a mount or a host half registers to one
// MCP client on stdin/stdout, announcing every change of the tool list. The client is its
// own session (its Plugins are its own), and the runner's messages for it ride on its
// next tool result. Every call passes through the runtime's
// tools/pre-execute event first (listeners that mounts or host halves wrote never see the
// cordis tools' own calls). The work directory is DIR, or a fresh temporary
// directory removed on exit. The runtime keeps its own state (the kv store) in STATE,
// outside the work directory so that no service serves it; by default a directory named
// after DIR in the user's cache directory, or next to the temporary work directory. With
// -store the dynamic Plugins, their Packages and grants are kept in STATE/definitions.db
// and survive a restart (those that were running start again); over stdio the client's
// session is then NAME (-session), or derived from its clientInfo.name, so the same
// client finds its Plugins again. Logs go to stderr. With -panel ADDR (such as 127.0.0.1:0) the panel of
// package panel is served on ADDR too, and the first line on stderr is
// "panel: <url with token>" for a person to open; the token is the content of FILE
// (-panel-token-file), else $CORDIS_PANEL_TOKEN, else random per process. No secret is
// ever a command-line argument, which every local user can read (ps): -panel-token is
// refused with what to pass instead, and a token file that other users can read or
// change is refused with the chmod that fixes it.
//
// With -http ADDR (such as 127.0.0.1:0; an ADDR without a host is loopback) mcp serves
// MCP's streamable HTTP transport at http://ADDR/mcp instead of stdio, to any number of
// clients at once: they share the one runtime, and each client is the session its bearer
// token proves (package mcpkit, "Many clients over HTTP"). Every request needs
// "Authorization: Bearer TOKEN" (else 401), a request from a web page's Origin is
// refused (403), and so is one on another token's client session. The process token is
// the content of FILE (-http-token-file), else $CORDIS_MCP_TOKEN, else random per
// process; each client that sends it is an ephemeral session of its own ("mcp-…"), so
// with -store its Plugins are not found after a restart (the start says so). A person
// who needs a session of their own, kept by -store, gets a line "SESSION TOKEN" in the
// file of -session-tokens (blank lines and # comments allowed, mode 0600): a client that
// sends that token is session SESSION, in this process and the next; with -panel the
// same token opens the panel on that session alone, while the panel's own token sees
// every session. The client's clientInfo.name never names a session over HTTP, and
// -session, which would put every client in one, is refused. The line
// "mcp: <url> (Authorization: Bearer <token>)" is first on stderr, after the panel's
// line when -panel is given too; a token from a file or the environment is named there,
// not shown. mcp -http serves until interrupted (SIGINT), then ends every client's
// session and shuts the runtime down.
//
// panel serves only the panel, on ADDR (default 127.0.0.1:0), with a sample Plugin whose
// client half waits for approval: it prints "panel: <url>" first on stderr and runs until
// interrupted.
//
// The generated files are refreshed by go generate and checked by verify-cordis-api.
package main

//go:generate go tool gen-cordis-api -out ./cordisapi -docs ./docs -facade ./agent

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/cordiskit/cordiskit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/pgstore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const usage = `usage: harness <command> [flags]

Commands:
  demo              play a short scripted session with the cordis tools and print it
  prompt            print the system prompt an agent loop gives this runtime's model
  mcp [-dir DIR] [-state STATE] [-store | -store-dsn DSN] [-session NAME]
                    serve the runtime's tools over MCP on stdin/stdout
                    (DIR is the work directory; default: a temporary one, removed on exit;
                    STATE keeps the runtime's own state, outside DIR; default: one for DIR
                    in the user's cache directory; -store keeps the dynamic Plugins in
                    STATE/definitions.db across restarts and restarts those that ran;
                    NAME is the client's session, default mcp:<clientInfo.name> with
                    -store, else one per connection)
      [-store-dsn DSN [-store-lease DURATION]]
                    keep the dynamic Plugins in PostgreSQL instead (DSN such as
                    postgres://cordis@db.example/cordis, default $CORDIS_STORE_DSN), where
                    several processes share them and a session's running Plugins move to
                    another process when theirs dies; a password is not taken on the
                    command line: put it in $CORDIS_STORE_DSN, $PGPASSWORD or ~/.pgpass;
                    DURATION is how long a session's lease lasts unrenewed, so how soon
                    another process runs its Plugins when theirs dies (default 10s, at
                    least 1s)
      [-panel ADDR [-panel-token-file FILE]]
                    also serve the panel on ADDR (such as 127.0.0.1:0); the first line on
                    stderr is "panel: <url>"; its token is in FILE (mode 0600), default
                    $CORDIS_PANEL_TOKEN, else random
      [-http ADDR [-http-token-file FILE] [-session-tokens FILE]]
                    serve MCP over streamable HTTP at http://ADDR/mcp instead of stdio,
                    to many clients, until interrupted; every request needs
                    "Authorization: Bearer TOKEN"; the line "mcp: <url> (Authorization:
                    Bearer <token>)" is first on stderr (after "panel: <url>"); the process
                    token is in -http-token-file, default $CORDIS_MCP_TOKEN, else random;
                    each client with it is a session of its own, lost on a restart;
                    -session-tokens FILE (mode 0600) has one "SESSION TOKEN" line per
                    person: a client with that token is SESSION, kept by -store, and the
                    token opens that session's panel; not with -session
  panel [-addr ADDR] [-panel-token-file FILE]
                    serve the panel with a sample definition to try, until interrupted
                    (ADDR default 127.0.0.1:0)
  help              print this help
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// errUsage marks a command line that does not parse; run prints the usage and exits 2.
var errUsage = errors.New("usage")

// nopCloser keeps the session's end from closing stdout, as mcp.StdioTransport does.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// run is the command without the process: it returns the exit code. stdin and stdout
// carry the MCP session of the mcp command.
func run(ctx context.Context, args []string, stdin io.ReadCloser, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "demo":
		if len(args) > 1 {
			err = fmt.Errorf("%w: demo takes no arguments", errUsage)
			break
		}
		err = runDemo(ctx, stdout, stderr)
	case "prompt":
		if len(args) > 1 {
			err = fmt.Errorf("%w: prompt takes no arguments", errUsage)
			break
		}
		err = runPrompt(ctx, stdout, stderr)
	case "panel":
		err = runPanelDemo(ctx, args[1:], stderr)
	case "mcp":
		err = runMCP(ctx, args[1:], &mcp.IOTransport{Reader: stdin, Writer: nopCloser{stdout}}, stderr)
	default:
		err = fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "harness: %v\n\n%s", err, usage)
		return 2
	}
	fmt.Fprintf(stderr, "harness: %v\n", err)
	return 1
}

func runDemo(ctx context.Context, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "cordiskit-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// The failing mount is part of the script: the kit's warning about it would only repeat
	// the tool's error, so the demo logs errors only.
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	return demo(ctx, stdout, dir, logger)
}

func runMCP(ctx context.Context, args []string, t mcp.Transport, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", "", "work directory")
	state := fs.String("state", "", "state directory")
	durable := fs.Bool("store", false, "keep the runner's definitions in STATE/definitions.db")
	storeDSN := fs.String("store-dsn", "", "keep the runner's definitions in this PostgreSQL database (default $"+storeDSNEnv+")")
	storeLease := fs.Duration("store-lease", 0, "with -store-dsn, how long a session's lease lasts unrenewed (default 10s)")
	session := fs.String("session", "", "the MCP client's session name")
	httpAddr := fs.String("http", "", "serve MCP over streamable HTTP on this address")
	httpTokenFile := fs.String("http-token-file", "", "a file holding the process token of -http (default $"+mcpTokenEnv+", else random)")
	sessionTokens := fs.String("session-tokens", "", "a file of SESSION TOKEN lines: a client of -http that sends a token is that session")
	var pf panelFlags
	fs.StringVar(&pf.addr, "panel", "", "serve the panel on this address")
	pf.register(fs)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: mcp: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: mcp takes no arguments besides -dir, -state, -store, -store-dsn, -store-lease, -session, -http, -http-token-file, -session-tokens, -panel and -panel-token-file", errUsage)
	}
	dsn, err := storeDSNOf(*storeDSN, *durable)
	if err != nil {
		return err
	}
	lease, err := storeLeaseOf(fs, *storeLease, dsn)
	if err != nil {
		return err
	}
	*durable = *durable || dsn != ""
	if err := checkPanelFlags(fs, pf, "mcp", "-panel"); err != nil {
		return err
	}
	switch {
	case *httpAddr != "" && *session != "":
		return fmt.Errorf("%w: mcp: -session puts every client in one session, and -http serves many clients, each the session its token proves; drop -session (a person's own session is their line in -session-tokens FILE)", errUsage)
	case *httpAddr == "" && *httpTokenFile != "":
		return fmt.Errorf("%w: mcp: -http-token-file needs -http ADDR (such as -http 127.0.0.1:0): over stdio the client is the process that started this one", errUsage)
	case *httpAddr == "" && *sessionTokens != "":
		return fmt.Errorf("%w: mcp: -session-tokens needs -http ADDR (such as -http 127.0.0.1:0); over stdio, name the one client's session with -session NAME", errUsage)
	}
	if *dir == "" {
		tmp, err := os.MkdirTemp("", "cordiskit-mcp-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*dir = filepath.Join(tmp, "work")
		if err := os.Mkdir(*dir, 0o755); err != nil {
			return err
		}
		if *state == "" {
			*state = filepath.Join(tmp, "state")
		}
	}
	if *state == "" {
		s, err := defaultStateDir(*dir)
		if err != nil {
			return err
		}
		*state = s
	}
	// The tokens are read first, so that a bad file is refused before anything listens;
	// then the panel's address goes first on stderr, then the MCP endpoint's, before the
	// boot logs anything.
	var m *mcpHTTP
	if *httpAddr != "" {
		var err error
		if m, err = listenMCP(*httpAddr, *httpTokenFile, *sessionTokens); err != nil {
			return err
		}
		pf.sessions = m.sessions
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	opts := &cordiskit.Options{MCP: &mcpkit.Options{}}
	if m != nil {
		opts.MCP.HTTP = m.options()
	} else {
		opts.MCP.Session = sessionNamer(*session, *durable)
	}
	switch {
	case dsn != "":
		st, err := pgstore.Open(ctx, dsn, &pgstore.Options{Logger: logger, LeaseTTL: lease})
		if err != nil {
			return errors.Join(err, m.close())
		}
		defer st.Close()
		opts.Runner = &runner.Options{RestartAtBoot: true, Store: st}
	case *durable:
		opts.StoreFile, opts.Runner = storeFile(*state), &runner.Options{RestartAtBoot: true}
	}
	if pf.addr != "" {
		p, err := listenPanel(pf)
		if err != nil {
			return errors.Join(err, m.close())
		}
		fmt.Fprintln(stderr, "panel:", p.url)
		opts.Panel, opts.PanelListener = p.options(*session, logger), p.ln
	}
	if m != nil {
		fmt.Fprintln(stderr, m.line())
	}
	h, err := bootWith(*dir, *state, logger, opts) // on failure, the panel's listener is closed
	if err != nil {
		return errors.Join(err, m.close())
	}
	if m != nil {
		err = serveMCPHTTP(ctx, h, m, logger, *durable) // closes its listener
	} else {
		err = h.cordis.ServeMCP(ctx, t)
	}
	if errors.Is(err, context.Canceled) { // interrupted: a normal way to stop a stdio server
		err = nil
	}
	return errors.Join(err, h.Close(context.WithoutCancel(ctx)))
}

// defaultStateDir is the state directory of work directory dir: one per directory in the
// user's cache directory, named after it, so a restart on the same -dir finds its state.
func defaultStateDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: %v; pass -state with a directory outside -dir", err)
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "cordiskit-harness", fmt.Sprintf("%s-%x", filepath.Base(abs), sum[:6])), nil
}

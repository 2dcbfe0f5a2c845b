package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"

	"github.com/cordiskit/cordiskit"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/panel"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// panelFlags are the panel's flags of one command: the address to serve it on ("": no
// panel), the file holding the operator's token, and the per-person tokens of mcp -http
// -session-tokens, each of which opens its own session's view.
type panelFlags struct {
	addr      string
	tokenFile string
	sessions  []mcpkit.Token
}

// register adds -panel-token-file to fs, and -panel-token only to refuse it.
func (f *panelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.tokenFile, "panel-token-file", "", "a file holding the panel's token (default $"+panelTokenEnv+", else random)")
	fs.String("panel-token", "", "refused: a token on the command line is visible to every local user")
}

// checkPanelFlags refuses -panel-token, saying what replaced it, and -panel-token-file
// without a panel to serve (command names the flag that serves one).
func checkPanelFlags(fs *flag.FlagSet, f panelFlags, command, addrFlag string) error {
	var old bool
	fs.Visit(func(fl *flag.Flag) { old = old || fl.Name == "panel-token" })
	switch {
	case old:
		return fmt.Errorf("%w: %s: -panel-token is gone, because every local user can read a command line (ps); "+
			"put the token in a file only you can read and pass -panel-token-file FILE, or set $%s", errUsage, command, panelTokenEnv)
	case f.tokenFile != "" && f.addr == "":
		return fmt.Errorf("%w: %s: -panel-token-file needs %s ADDR (such as %s 127.0.0.1:0)", errUsage, command, addrFlag, addrFlag)
	}
	return nil
}

// A panelServer is where the panel of one command is served: its listener, opened
// before there is a runner to serve (listenPanel), the operator's token, the URL a person
// opens and the per-person tokens. cordiskit.New serves the panel on the listener
// (Options.PanelListener) and Close ends it.
type panelServer struct {
	ln       net.Listener
	token    string
	url      string
	sessions []mcpkit.Token // per-person tokens: each opens its session's view only
}

// listenPanel opens the panel's listener and fixes its token and URL, before there is a
// runner to serve: the URL can then be the first line on stderr, ahead of anything the
// boot logs. Connections wait in the listener's backlog until the panel serves.
func listenPanel(f panelFlags) (*panelServer, error) {
	token, _, err := resolveToken("-panel-token-file", f.tokenFile, panelTokenEnv)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return nil, fmt.Errorf("-panel %s: %v; pass a free loopback address such as 127.0.0.1:0", f.addr, err)
	}
	p := &panelServer{ln: ln, token: token, sessions: f.sessions}
	p.url = "http://" + ln.Addr().String() + "/?token=" + p.token
	return p, nil
}

// options are the panel's options (cordiskit.Options.Panel), with session as "this
// session" ("": none).
func (p *panelServer) options(session string, logger *slog.Logger) *panel.Options {
	return &panel.Options{Token: p.token, Session: session, Logger: logger, Sessions: sessionLookup(p.sessions)}
}

// panelSession is the session the panel demo's sample belongs to.
const panelSession = "panel-demo"

// sampleHost and sampleClient are the panel demo's Package: a host half with a handler
// and a client half whose button calls it through host.call.
const sampleHost = `harness.handle('greet', (args) => ({ greeting: 'hello, ' + (args && args.name || 'you') + '!' }));
return { name: 'greeter', apply(ctx) {} }`

const sampleClient = `const h = React.createElement;
styles.insert('button { font: inherit; padding: 6px 12px; } .answer { color: #17794a; font-weight: 600; }');
return {
  name: 'greeter-view',
  apply(ctx) {
    ctx.slots.register({ name: 'cordis.card', component: function View() {
      const [text, setText] = React.useState('Press the button: the host half answers.');
      const ask = () => host.call('greet', { name: 'panel' }).then((v) => setText(v.greeting), (e) => setText('error: ' + e.message));
      return h('div', null, h('button', { onClick: ask }, 'Greet me'), h('p', { className: 'answer' }, text));
    } });
  },
}`

// runPanelDemo serves the panel on -addr with a sample definition that asks for approval,
// for a person to try: it prints "panel: <url>" first on stderr and serves until ctx is
// done (an interrupt).
func runPanelDemo(ctx context.Context, args []string, stderr io.Writer) error {
	f, err := parsePanelDemoFlags(args)
	if err != nil {
		return err
	}
	p, err := listenPanel(f)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "panel:", p.url)
	dir, err := os.MkdirTemp("", "cordiskit-panel-")
	if err != nil {
		return errors.Join(err, p.ln.Close())
	}
	defer os.RemoveAll(dir)
	if err := os.Mkdir(filepath.Join(dir, "work"), 0o755); err != nil {
		return errors.Join(err, p.ln.Close())
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	h, err := bootWith(filepath.Join(dir, "work"), filepath.Join(dir, "state"), logger,
		&cordiskit.Options{Panel: p.options(panelSession, logger), PanelListener: p.ln})
	if err != nil {
		return err
	}
	err = defineSample(ctx, h.r)
	if err == nil {
		fmt.Fprintln(stderr, "panel: open the address above; the sample Plugin waits for your approval. Interrupt to stop.")
		<-ctx.Done()
	}
	return errors.Join(err, h.Close(context.WithoutCancel(ctx)))
}

// parsePanelDemoFlags parses the panel command's flags.
func parsePanelDemoFlags(args []string) (panelFlags, error) {
	fs := flag.NewFlagSet("panel", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f panelFlags
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "address to serve the panel on")
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return f, fmt.Errorf("%w: panel: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("%w: panel takes no arguments besides -addr and -panel-token-file", errUsage)
	}
	return f, checkPanelFlags(fs, f, "panel", "-addr")
}

// defineSample defines the sample Plugin in panelSession and asks to run it, through the
// runtime's tools registry as the model would, so the panel's activity list shows both
// calls: a Package with a client half waits for a person's approval in the panel.
func defineSample(ctx context.Context, r *runner.Runner) error {
	tools, ok := kit.ToolsService.Get(r.Fiber().Context())
	if !ok {
		return errors.New("defining the sample: the runtime has no tools registry")
	}
	sctx := kit.WithSession(ctx, panelSession)
	args, err := json.Marshal(map[string]any{
		"plugin":  map[string]string{"kind": "new", "idPrefix": "greet"},
		"name":    "Greeter",
		"purpose": "Greets you from the host half when you press its button.",
		"code":    map[string]string{"host": sampleHost, "client": sampleClient},
	})
	if err != nil {
		return err
	}
	out, err := tools.Call(sctx, "cordis_define", args)
	if err != nil {
		return fmt.Errorf("defining the sample: %w", err)
	}
	var d dynamic.DefineOutput
	if err := json.Unmarshal(out, &d); err != nil {
		return fmt.Errorf("defining the sample: its answer %s: %w", out, err)
	}
	args, err = json.Marshal(map[string]string{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"})
	if err != nil {
		return err
	}
	if _, err := tools.Call(sctx, "cordis_run", args); err != nil {
		return fmt.Errorf("running the sample: %w", err)
	}
	return nil
}

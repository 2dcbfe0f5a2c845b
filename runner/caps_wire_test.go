package runner_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/tooltest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/sqlstore"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	aliceToken = "alice-caps-token-0123456789"
	bobToken   = "bob-caps-token-0123456789ab"
)

// bearer adds a bearer token to every request, as an MCP client configured with one does.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// serveCaps serves a runtime with a runner of opts over MCP's streamable HTTP transport
// until the test ends, for alice and bob, and returns the runner and a client of each.
func serveCaps(t *testing.T, opts *runner.Options) (r *runner.Runner, alice, bob *mcp.ClientSession) {
	t.Helper()
	root := tooltest.NewRuntime(t)
	r, err := runner.New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	tokens := &mcpkit.HTTPOptions{Tokens: []mcpkit.Token{{Token: aliceToken, Session: "alice"}, {Token: bobToken, Session: "bob"}}}
	go func() { done <- mcpkit.ServeHTTP(ctx, root, ln, &mcpkit.Options{Messages: r, HTTP: tokens}) }()
	tr := &http.Transport{}
	t.Cleanup(func() {
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeHTTP: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeHTTP did not return after its context ended")
		}
		tr.CloseIdleConnections()
		r.Dispose(context.Background())
	})
	connect := func(token string) *mcp.ClientSession {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "caps", Version: "v0"}, nil).Connect(cctx, &mcp.StreamableClientTransport{
			Endpoint: "http://" + ln.Addr().String() + mcpkit.HTTPPath, HTTPClient: &http.Client{Transport: bearer{token, tr}}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	return r, connect(aliceToken), connect(bobToken)
}

// call calls a tool and returns its text and whether it is a tool error.
func call(t *testing.T, cs *mcp.ClientSession, name, args string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// must calls a tool that must succeed and returns its text.
func must(t *testing.T, cs *mcp.ClientSession, name, args string) string {
	t.Helper()
	out, isErr := call(t, cs, name, args)
	if isErr {
		t.Fatalf("%s %s: %s", name, args, out)
	}
	return out
}

// refused calls a tool that must fail with a message containing want.
func refused(t *testing.T, cs *mcp.ClientSession, name, args, want string) {
	t.Helper()
	out, isErr := call(t, cs, name, args)
	if !isErr || !strings.Contains(out, want) {
		t.Fatalf("%s %s = %s (error %v)\nwant a refusal containing %s", name, args, out, isErr, want)
	}
}

const (
	defineHost   = `{"plugin":{"kind":"new","idPrefix":"clock"},"name":"Clock","purpose":"Shows the time.","code":{"host":"return (ctx) => {}"}}`
	defineClient = `{"plugin":{"kind":"new","idPrefix":"page"},"name":"Page","purpose":"Shows a page.","code":{"client":"return () => {}"}}`
	// runaway registers handlers without end, as the red team's half did.
	runaway = `{"plugin":{"kind":"existing","pluginId":"clock-1"},"name":"Runaway","purpose":"Registers without end.","code":{"host":"for (let i = 0; ; i++) harness.handle('m' + i, () => i)"}}`
)

// Two MCP clients over HTTP, each its own session by its token: alice at each cap is
// refused with the teaching message, over the wire, while bob's defines and requests go
// through as if alice did not exist; alice's runaway half ends at the handler cap.
func TestCapsOverMCPHTTP(t *testing.T) {
	_, alice, bob := serveCaps(t, &runner.Options{MaxPluginsPerSession: 2, MaxPendingRequestsPerSession: 1, MaxHandlersPerRun: 8})
	must(t, alice, "cordis_define", defineHost)
	must(t, alice, "cordis_define", defineClient)
	refused(t, alice, "cordis_define", defineHost, "this session holds 2 Plugins, the most it may hold (runner.Options.MaxPluginsPerSession); cordis_undefine one you no longer need")
	if out := must(t, bob, "cordis_define", defineHost); !strings.Contains(out, `"pluginId":"clock-3"`) {
		t.Fatalf("bob's define while alice is at her cap: %s", out)
	}
	must(t, bob, "cordis_define", defineClient)

	// The request cap: alice's one waiting request, then a refusal; bob's goes through.
	if out := must(t, alice, "cordis_run", `{"pluginId":"page-2","packageId":"pkg-2","mode":"run"}`); !strings.Contains(out, `"status":"awaiting-approval"`) {
		t.Fatalf("alice's first run request: %s", out)
	}
	must(t, alice, "cordis_define", `{"plugin":{"kind":"existing","pluginId":"clock-1"},"name":"Clock","purpose":"With a page.","code":{"client":"return () => {}"}}`)
	refused(t, alice, "cordis_run", `{"pluginId":"clock-1","packageId":"pkg-5","mode":"run"}`, "this session has 1 run requests waiting for the Cordis panel, the most it may have (runner.Options.MaxPendingRequestsPerSession)")
	if out := must(t, bob, "cordis_run", `{"pluginId":"page-4","packageId":"pkg-4","mode":"run"}`); !strings.Contains(out, `"status":"awaiting-approval"`) {
		t.Fatalf("bob's run request while alice is at her cap: %s", out)
	}

	// The handler cap ends the runaway half at once, with the cap's message.
	must(t, alice, "cordis_define", runaway)
	refused(t, alice, "cordis_run", `{"pluginId":"clock-1","packageId":"pkg-6","mode":"run"}`, `harness.handle("m8"): this run holds 8 handlers, the most one run may hold (runner.Options.MaxHandlersPerRun)`)

	// Nothing of alice's reached bob.
	if out := must(t, bob, "cordis_inspect_self", `{}`); strings.Contains(out, "clock-1") || strings.Contains(out, "page-2") {
		t.Fatalf("bob sees alice's Plugins: %s", out)
	}
}

// Plugins a durable store kept from a process with a higher cap are all restored by the
// next, with a lower one, and keep running and taking Packages: only a new Plugin is
// refused, until undefines bring the session under the cap.
func TestLoweredCapKeepsTheRestoredPlugins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	ctx := kit.WithSession(context.Background(), "alice")
	boot := func(opts *runner.Options) *runner.Runner {
		t.Helper()
		s, err := sqlstore.Open(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		root := tooltest.NewRuntime(t)
		opts.Store = s
		r, err := runner.New(root, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			r.Dispose(context.Background())
			s.Close()
		})
		return r
	}
	define := func(r *runner.Runner, ref dynamic.Target) (dynamic.DefineOutput, error) {
		host := "return (ctx) => {}"
		return r.Define(ctx, dynamic.DefineInput{Plugin: ref, Name: "Clock", Purpose: "Shows the time.", Code: dynamic.Code{Host: &host}})
	}
	first := boot(&runner.Options{})
	for range 5 {
		if _, err := define(first, dynamic.Target{Kind: "new", IDPrefix: "clock"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := first.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := first.Store().(*sqlstore.Store).Close(); err != nil {
		t.Fatal(err)
	}

	r := boot(&runner.Options{MaxPluginsPerSession: 3})
	self, err := r.InspectSelf(ctx, dynamic.InspectSelfInput{})
	if err != nil || len(*self.Plugins) != 5 || !(*self.Plugins)[4].Restored {
		t.Fatalf("after the restart alice lists %+v (%v); want the 5 restored", self.Plugins, err)
	}
	_, err = define(r, dynamic.Target{Kind: "new", IDPrefix: "clock"})
	if runner.ReasonOf(err) != runner.ReasonLimit || !strings.Contains(err.Error(), "this session holds 5 Plugins, the most it may hold (runner.Options.MaxPluginsPerSession)") {
		t.Fatalf("a new Plugin past the lowered cap: %v", err)
	}
	if out, err := r.Run(ctx, dynamic.RunInput{PluginID: "clock-5", PackageID: "pkg-5", Mode: dynamic.ModeRun}); err != nil || out.Status != "running" {
		t.Fatalf("running a restored Plugin past the cap = %+v, %v", out, err)
	}
	if _, err := define(r, dynamic.Target{Kind: "existing", PluginID: "clock-4"}); err != nil {
		t.Fatalf("a Package on a restored Plugin past the Plugin cap: %v", err)
	}
	for _, id := range []string{"clock-1", "clock-2", "clock-3"} {
		if _, err := r.Undefine(ctx, dynamic.UndefineInput{PluginID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if d, err := define(r, dynamic.Target{Kind: "new", IDPrefix: "clock"}); err != nil || d.PluginID != "clock-6" {
		t.Fatalf("a new Plugin once under the cap: %+v, %v", d, err)
	}
}

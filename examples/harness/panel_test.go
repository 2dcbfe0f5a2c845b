package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPanelUsage: the panel's flags are refused with the help when they do not fit.
func TestPanelUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"mcp", "-panel-token-file", "f"}, "-panel-token-file needs -panel ADDR"},
		{[]string{"mcp", "-panel", "127.0.0.1:0", "-panel-token", "abc"}, "-panel-token is gone, because every local user can read a command line (ps); put the token in a file only you can read and pass -panel-token-file FILE, or set $CORDIS_PANEL_TOKEN"},
		{[]string{"panel", "-panel-token", ""}, "-panel-token is gone"},
		{[]string{"mcp", "-panel"}, "flag needs an argument: -panel"},
		{[]string{"panel", "extra"}, "panel takes no arguments besides -addr and -panel-token-file"},
		{[]string{"panel", "-panel", "127.0.0.1:0"}, "flag provided but not defined: -panel"},
	} {
		var stdout, stderr strings.Builder
		code := run(context.Background(), tc.args, io.NopCloser(strings.NewReader("")), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.stderr) || !strings.Contains(stderr.String(), "Commands:") {
			t.Errorf("harness %v: exit %d, stderr %q; want exit 2, %q and the help", tc.args, code, stderr.String(), tc.stderr)
		}
	}
	var stderr strings.Builder
	code := run(context.Background(), []string{"mcp", "-panel", "256.0.0.1:0"}, io.NopCloser(strings.NewReader("")), io.Discard, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "pass a free loopback address") {
		t.Errorf("mcp -panel 256.0.0.1:0: exit %d, stderr %q; want exit 1 and how to fix it", code, stderr.String())
	}
}

// panelLine matches the first line on stderr and captures the URL.
var panelLine = regexp.MustCompile(`^panel: (http://127\.0\.0\.1:\d+/\?token=(\S+))\n$`)

// firstLine starts cmd with stderr on a pipe and returns the first line it writes;
// the rest of stderr is drained until cmd returns. wait returns cmd's error.
func firstLine(t *testing.T, cmd func(stderr io.Writer) error) (line string, wait func() error) {
	t.Helper()
	lines, wait := firstLines(t, 1, cmd)
	return lines[0], wait
}

// firstLines is firstLine for the first n lines.
func firstLines(t *testing.T, n int, cmd func(stderr io.Writer) error) (lines []string, wait func() error) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := cmd(pw)
		pw.Close()
		done <- err
	}()
	br := bufio.NewReader(pr)
	var err error
	for len(lines) < n && err == nil {
		var line string
		line, err = br.ReadString('\n')
		lines = append(lines, line)
	}
	drained := make(chan struct{})
	go func() { io.Copy(io.Discard, br); close(drained) }()
	wait = func() error { err := <-done; <-drained; return err }
	if err != nil {
		t.Fatalf("reading line %d on stderr: %v (so far %q; the command returned %v)", len(lines), err, lines, wait())
	}
	return lines, wait
}

// openPanel gets the page at url as a browser does (the token sets the cookie, the 303
// drops it) and returns the page's body.
func openPanel(t *testing.T, url string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 5 * time.Second}
	res, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), "<title>Cordis panel</title>") {
		t.Fatalf("GET %s: %s\n%s", url, res.Status, b)
	}
	return string(b)
}

// inventory calls the inventory verb with the token as a bearer.
func inventory(t *testing.T, url, token string) string {
	t.Helper()
	return panelVerb(t, url, token, "inventory", "{}")
}

// panelVerb calls a page verb of the panel at url with the token as a bearer, as the
// panel's page does, and returns the answer's body.
func panelVerb(t *testing.T, url, token, verb, body string) string {
	t.Helper()
	base := url[:strings.Index(url, "?")]
	req, _ := http.NewRequest("POST", base+"rpc/"+verb, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s %s", verb, res.Status, b)
	}
	return string(b)
}

// TestMCPPanel: mcp -panel serves MCP on its transport and the panel on the address,
// whose URL is the first line on stderr; the token is the content of -panel-token-file,
// else $CORDIS_PANEL_TOKEN, else random.
func TestMCPPanel(t *testing.T) {
	for _, tc := range []struct {
		name, file, env, want string
	}{
		{"file", "from-file-0123456789\n", "from-env-0123456789", "from-file-0123456789"},
		{"env", "", "from-env-0123456789", "from-env-0123456789"},
		{"random", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(panelTokenEnv, tc.env)
			args := []string{"-dir", t.TempDir(), "-state", t.TempDir(), "-panel", "127.0.0.1:0"}
			if tc.file != "" {
				args = append(args, "-panel-token-file", secretFile(t, tc.file))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			st, ct := mcp.NewInMemoryTransports()
			line, wait := firstLine(t, func(stderr io.Writer) error { return runMCP(ctx, args, st, stderr) })
			m := panelLine.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("first line on stderr %q is not panel: <url with token>", line)
			}
			if tc.want != "" && m[2] != tc.want {
				t.Errorf("token %q, want %q", m[2], tc.want)
			}
			if tc.want == "" && len(m[2]) < 16 {
				t.Errorf("random token %q is too short to be unguessable", m[2])
			}
			openPanel(t, m[1])

			// The same process serves MCP: a define there shows in the panel.
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "panel-test", Version: "v0"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "cordis_define", Arguments: map[string]any{
				"plugin": map[string]any{"kind": "new", "idPrefix": "clock"}, "name": "Clock", "purpose": "Shows the time.",
				"code": map[string]any{"host": "return (ctx) => {}"}}})
			if err != nil || res.IsError {
				t.Fatalf("cordis_define: %v %+v", err, res)
			}
			if inv := inventory(t, m[1], m[2]); !strings.Contains(inv, `"clock-1"`) {
				t.Errorf("the panel's inventory does not list the defined clock-1: %s", inv)
			}
			cs.Close()
			if err := wait(); err != nil {
				t.Fatalf("mcp: %v", err)
			}
		})
	}
}

// TestPanelDemo: the panel command serves a sample Plugin awaiting approval at the URL it
// prints first, and returns cleanly when interrupted.
func TestPanelDemo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	line, wait := firstLine(t, func(stderr io.Writer) error {
		return runPanelDemo(ctx, []string{"-panel-token-file", secretFile(t, "demo-token-0123456789")}, stderr)
	})
	m := panelLine.FindStringSubmatch(line)
	if m == nil || m[2] != "demo-token-0123456789" {
		t.Fatalf("first line on stderr %q is not panel: <url with the token of the file>", line)
	}
	openPanel(t, m[1])
	var inv string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if inv = inventory(t, m[1], m[2]); strings.Contains(inv, `"greet-1"`) && strings.Contains(inv, "approval-") {
			break
		}
	}
	if !strings.Contains(inv, `"greet-1"`) || !strings.Contains(inv, "approval-") {
		t.Errorf("the demo's inventory has no greet-1 awaiting approval: %s", inv)
	}
	// The sample was defined and run through the tools registry, as a model would: the
	// activity list shows both calls, newest first, with no wiring in the runtime.
	var act struct {
		Value []struct {
			Tool, Session, State string
			Define               *struct{ PluginID string } `json:"define"`
		} `json:"value"`
	}
	if body := panelVerb(t, m[1], m[2], "activity", "{}"); json.Unmarshal([]byte(body), &act) != nil || len(act.Value) != 2 ||
		act.Value[0].Tool != "cordis_run" || act.Value[1].Tool != "cordis_define" || act.Value[1].State != "ok" ||
		act.Value[1].Session != panelSession || act.Value[1].Define == nil || act.Value[1].Define.PluginID != "greet-1" {
		t.Errorf("the demo's activity list = %s, want its cordis_run and then its cordis_define of greet-1", body)
	}
	cancel()
	if err := wait(); err != nil {
		t.Fatal(fmt.Errorf("panel demo after an interrupt: %w", err))
	}
}

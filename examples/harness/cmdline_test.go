package main

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnv makes the test binary run the harness command after "--" (TestHarnessChild)
// instead of the tests, so a test can look at a real process from outside.
const childEnv = "CORDIS_HARNESS_CHILD"

// TestHarnessChild is the command of a child process, not a test: with $CORDIS_HARNESS_CHILD
// set it runs the arguments after "--" as main does and exits with its code.
func TestHarnessChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("the harness command of child processes; see TestNoSecretOnTheCommandLine")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// TestNoSecretOnTheCommandLine: no documented invocation of mcp -http, -panel or panel
// puts a token where every local user can read it (/proc/PID/cmdline, which ps shows),
// whether the tokens come from files or the environment or are made at random; and a
// token made at random differs in every process.
func TestNoSecretOnTheCommandLine(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc: the command line is checked where ps reads it")
	}
	httpTok, panelTokFile := secretFile(t, "http-file-token-0123456789\n"), secretFile(t, "panel-file-token-0123456789")
	secrets := []string{"http-file-token-0123456789", "panel-file-token-0123456789", aliceTok, bobTok, "env-mcp-token-0123456789", "env-panel-token-0123456789"}
	random := map[string]bool{} // the tokens the random runs showed
	for _, tc := range []struct {
		name   string
		env    []string
		args   []string
		random bool // its tokens are made at random, and shown
	}{
		{"random", nil, []string{"mcp", "-http", "127.0.0.1:0", "-panel", "127.0.0.1:0"}, true},
		{"random again", nil, []string{"mcp", "-http", "127.0.0.1:0", "-panel", "127.0.0.1:0"}, true},
		{"files", nil, []string{"mcp", "-http", "127.0.0.1:0", "-http-token-file", httpTok, "-session-tokens", sessionTokens(t), "-store", "-panel", "127.0.0.1:0", "-panel-token-file", panelTokFile}, false},
		{"environment", []string{mcpTokenEnv + "=env-mcp-token-0123456789", panelTokenEnv + "=env-panel-token-0123456789"}, []string{"mcp", "-http", "127.0.0.1:0", "-panel", "127.0.0.1:0"}, false},
		{"panel", nil, []string{"panel", "-panel-token-file", panelTokFile}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && (tc.name == "environment" || tc.name == "panel") {
				t.Skip("a child process each; -short runs the random and file cases")
			}
			args := tc.args
			if args[0] == "mcp" {
				args = append(args, "-dir", t.TempDir(), "-state", t.TempDir())
			}
			shown, cmdline := childCommandLine(t, tc.env, args)
			for _, s := range append(shown, secrets...) {
				if strings.Contains(cmdline, s) {
					t.Errorf("the command line %q holds the token %s", cmdline, s)
				}
			}
			if !tc.random {
				return
			}
			for _, s := range shown {
				if len(s) < 16 || random[s] {
					t.Errorf("the random token %q is short or was made by another process too", s)
				}
				random[s] = true
			}
		})
	}
}

// childCommandLine runs the harness with args and env in a child process until its mcp
// line (or, for panel, its panel line), reads its command line as ps does, interrupts it
// and waits for it. It returns the tokens its lines show (not those they name) and the
// command line.
func childCommandLine(t *testing.T, env, args []string) (shown []string, cmdline string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHarnessChild$", "--"}, args...)...)
	// The test's own variables last: of duplicates, the last wins.
	cmd.Env = append(append(os.Environ(), childEnv+"=1", mcpTokenEnv+"=", panelTokenEnv+"="), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer kill.Stop()
	lines := bufio.NewScanner(stderr)
	var seen []string
	endpoint := ""
	for lines.Scan() {
		line := lines.Text() + "\n"
		seen = append(seen, line)
		p, m := panelLine.FindStringSubmatch(line), mcpLine.FindStringSubmatch(line)
		switch {
		case p != nil:
			shown = append(shown, p[2])
		case m != nil:
			shown, endpoint = append(shown, m[2]), m[1]
		}
		// Ready: the panel demo says so; mcp answers once it has booted.
		if m != nil || strings.HasPrefix(line, "panel: open the address above") {
			break
		}
	}
	for deadline := time.Now().Add(10 * time.Second); endpoint != "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		res, err := (&http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Post(endpoint, "application/json", strings.NewReader("{}"))
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusUnauthorized {
				break
			}
		}
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "cmdline"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(os.Interrupt)
	drained := make(chan struct{})
	go func() {
		for lines.Scan() {
			seen = append(seen, lines.Text()+"\n")
		}
		close(drained)
	}()
	<-drained
	if err := cmd.Wait(); err != nil {
		t.Errorf("harness %v after an interrupt: %v; its stderr %q", args, err, seen)
	}
	if len(shown) == 0 {
		t.Fatalf("harness %v: no panel or mcp line on stderr: %q", args, seen)
	}
	var visible []string
	for _, s := range shown {
		if !strings.HasPrefix(s, "<") && !strings.HasPrefix(s, "$") {
			visible = append(visible, s)
		}
	}
	return visible, strings.ReplaceAll(string(b), "\x00", " ")
}

package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/examples/harness/agent"
)

func TestExecutor(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the exec tests use sh")
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := agent.NewExecutor(dir, &agent.ExecOptions{MaxOutput: 64, DefaultTimeout: 5 * time.Second})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	sh := func(script string) agent.Command { return agent.Command{Program: "sh", Args: []string{"-c", script}} }
	tests := []struct {
		name    string
		ctx     context.Context
		cmd     agent.Command
		want    agent.Result // compared on Stdout, Stderr, ExitCode, TimedOut, Truncated
		wantErr string
	}{
		{name: "stdout", cmd: agent.Command{Program: "echo", Args: []string{"hello", "world"}}, want: agent.Result{Stdout: "hello world\n"}},
		{name: "stderr and exit code", cmd: sh("echo oops >&2; exit 3"), want: agent.Result{Stderr: "oops\n", ExitCode: 3}},
		{name: "stdin", cmd: agent.Command{Program: "cat", Stdin: "piped"}, want: agent.Result{Stdout: "piped"}},
		{name: "runs in the work dir", cmd: sh("basename \"$PWD\""), want: agent.Result{Stdout: filepath.Base(dir) + "\n"}},
		{name: "relative dir", cmd: agent.Command{Program: "sh", Args: []string{"-c", "basename \"$PWD\""}, Dir: "sub"}, want: agent.Result{Stdout: "sub\n"}},
		{name: "timeout kills", cmd: agent.Command{Program: "sleep", Args: []string{"10"}, Timeout: 50 * time.Millisecond}, want: agent.Result{ExitCode: -1, TimedOut: true}},
		{name: "timeout with a child holding the pipe", cmd: agent.Command{Program: "sh", Args: []string{"-c", "sleep 10 & sleep 10"}, Timeout: 50 * time.Millisecond}, want: agent.Result{ExitCode: -1, TimedOut: true}},
		{name: "output is capped", cmd: sh("yes | head -c 1000"), want: agent.Result{Stdout: strings.Repeat("y\n", 32), Truncated: true}},
		{name: "dir outside the root", cmd: agent.Command{Program: "ls", Dir: "../"}, wantErr: "outside the work directory"},
		{name: "no program", cmd: agent.Command{}, wantErr: "no program given"},
		{name: "unknown program", cmd: agent.Command{Program: "no-such-program-cordiskit"}, wantErr: "check the program name"},
		{name: "cancelled", ctx: cancelled, cmd: sh("true"), wantErr: "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			start := time.Now()
			got, err := e.Run(ctx, tt.cmd)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.Duration = 0
			if got != tt.want {
				t.Errorf("Run = %+v\nwant  %+v", got, tt.want)
			}
			if elapsed := time.Since(start); elapsed > 3*time.Second {
				t.Errorf("took %v", elapsed)
			}
		})
	}
}

func TestExecutorShellAndMaxTimeout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the exec tests use sh")
	}
	e := agent.NewExecutor(t.TempDir(), &agent.ExecOptions{MaxTimeout: 50 * time.Millisecond})
	res, err := e.Shell(context.Background(), "printf '%s' \"$((6*7))\"")
	if err != nil || res.Stdout != "42" || res.ExitCode != 0 {
		t.Fatalf("Shell = %+v, %v", res, err)
	}
	res, err = e.Run(context.Background(), agent.Command{Program: "sleep", Args: []string{"10"}, Timeout: time.Hour})
	if err != nil || !res.TimedOut {
		t.Fatalf("a timeout above MaxTimeout was not capped: %+v, %v", res, err)
	}
	if res.Duration > 2*time.Second {
		t.Fatalf("ran for %v", res.Duration)
	}
}

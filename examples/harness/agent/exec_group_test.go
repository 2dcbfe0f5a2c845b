//go:build unix

package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/examples/harness/agent"
)

// gone reports whether pid has ended (a zombie counts: it runs nothing, it only waits for
// a parent that reaps it), waiting up to two seconds for a kill to land.
func gone(t *testing.T, pid int) bool {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(b), ')'); i > 0 && strings.HasPrefix(string(b[i+1:]), " Z") {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func pidOf(t *testing.T, s string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || pid <= 0 {
		t.Fatalf("no pid in %q", s)
	}
	return pid
}

// A background child of a command that exited is killed with it: it cannot outlive the
// call, hold its output open, or keep writing.
func TestExecBackgroundChildEndsWithTheCommand(t *testing.T) {
	dir := t.TempDir()
	e := agent.NewExecutor(dir, nil)
	start := time.Now()
	res, err := e.Shell(context.Background(), "sleep 100 & echo $!")
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Shell = %+v, %v", res, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a background child holding stdout delayed the result by %v", d)
	}
	if pid := pidOf(t, res.Stdout); !gone(t, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the background sleep (pid %d) outlived its command", pid)
	}

	res, err = e.Shell(context.Background(), "(while true; do echo x >> log; sleep 0.01; done) >/dev/null 2>&1 & echo $!")
	if err != nil {
		t.Fatal(err)
	}
	if pid := pidOf(t, res.Stdout); !gone(t, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the background writer (pid %d) outlived its command", pid)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "log"))
	time.Sleep(100 * time.Millisecond)
	if after, _ := os.ReadFile(filepath.Join(dir, "log")); len(after) != len(before) {
		t.Errorf("the log still grows after the command ended: %d -> %d bytes", len(before), len(after))
	}
}

// A child that leaves the process group (setsid) is beyond the executor, but it cannot
// hold the call open: its pipes are cut after WaitDelay.
func TestExecEscapedChildCannotHoldTheCall(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		if _, err := os.Stat("/bin/setsid"); err != nil {
			t.Skip("no setsid")
		}
	}
	e := agent.NewExecutor(t.TempDir(), nil)
	start := time.Now()
	res, err := e.Shell(context.Background(), "setsid sleep 30 & echo $!")
	if err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, strings.Fields(res.Stdout)[0])
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("a child outside the group held the call for %v", d)
	}
}

// Close kills the commands still running, whole groups, and their runs return at once.
func TestExecutorCloseKillsRunningCommands(t *testing.T) {
	dir := t.TempDir()
	e := agent.NewExecutor(dir, nil)
	done := make(chan agent.Result, 1)
	go func() {
		res, _ := e.Shell(context.Background(), "sleep 100 & echo $! > pid; wait")
		done <- res
	}()
	var pid int
	for deadline := time.Now().Add(5 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			pid = pidOf(t, string(b))
		} else if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
	}
	start := time.Now()
	e.Close()
	select {
	case res := <-done:
		if res.ExitCode != -1 {
			t.Errorf("a killed command exited %d", res.ExitCode)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Run did not return after Close")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v to end the run", d)
	}
	if !gone(t, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the command's child (pid %d) outlived Close", pid)
	}
}

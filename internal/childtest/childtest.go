// Package childtest runs a test in a child process of the test binary, so that a fatal
// Go error (a stack overflow, an out-of-memory abort, a deadlock the runtime detects)
// fails that test instead of killing the whole suite.
//
//	func TestHostile(t *testing.T) {
//		if childtest.Parent(t) {
//			return // the child ran the test; its verdict is already on t
//		}
//		… // runs in the child only
//	}
package childtest

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// envVar marks the child process; its value is the name of the test it runs.
const envVar = "CORDISKIT_CHILDTEST"

// Parent reports whether the calling test is running in the parent process. There it
// re-runs the test (and only that test) in a child process, copies the child's output to
// t's log (all of it when it failed; without -v a child prints only its failures), and
// fails t when the child failed or crashed; the caller then returns. In the
// child it reports false and the test runs normally.
func Parent(t *testing.T) bool {
	t.Helper()
	if os.Getenv(envVar) == t.Name() {
		return false
	}
	args := []string{"-test.run=" + runPattern(t.Name())}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	if f := flag.Lookup("test.timeout"); f != nil && f.Value.String() != "" {
		args = append(args, "-test.timeout="+f.Value.String())
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envVar+"="+t.Name())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if testing.Verbose() || err != nil {
		t.Logf("child process output:\n%s", tail(out.String(), 400))
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if bytes.Contains(out.Bytes(), []byte("fatal error:")) || bytes.Contains(out.Bytes(), []byte("panic:")) {
			t.Errorf("the child process running %s crashed (%v): see the output above", t.Name(), err)
		} else {
			t.Errorf("%s failed in its child process (%v)", t.Name(), err)
		}
	case err != nil:
		t.Fatalf("running %s in a child process: %v", t.Name(), err)
	case bytes.Contains(out.Bytes(), []byte("no tests to run")):
		t.Errorf("the child process did not run %s (pattern %s)", t.Name(), runPattern(t.Name()))
	}
	return true
}

// runPattern matches exactly the test name (and its subtests), level by level.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// tail keeps the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

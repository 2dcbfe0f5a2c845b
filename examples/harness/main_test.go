package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/cordiskit/cordiskit/internal/golden"
	"github.com/cordiskit/cordiskit/internal/pgtest"
)

// TestMain checks for leaked goroutines and stops the PostgreSQL cluster of the -store-dsn
// tests, if one started (pgtest.Main does both).
func TestMain(m *testing.M) { pgtest.Main(m) }

// quiet is a logger for tests that fails nothing and prints nothing.
func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestDemo plays the demo and compares its transcript with testdata/demo.golden; run with
// -update to accept a new transcript. The demo checks its own script (a call that should
// fail, fails), so an error here is a step that went off script.
func TestDemo(t *testing.T) {
	var out, logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError}))
	if err := demo(context.Background(), &out, t.TempDir(), logger); err != nil {
		t.Fatalf("demo: %v\ntranscript so far:\n%s", err, out.String())
	}
	if logs.Len() > 0 {
		t.Errorf("the demo logged errors:\n%s", logs.String())
	}
	goldenfile.Check(t, filepath.Join("testdata", "demo.golden"), out.Bytes())
}

// TestDemoDeterministic checks that two runs in different work directories print the same
// bytes: no paths, no timestamps, no ids that depend on the run.
func TestDemoDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	for _, w := range []*bytes.Buffer{&a, &b} {
		if err := demo(context.Background(), w, t.TempDir(), quiet()); err != nil {
			t.Fatal(err)
		}
	}
	if a.String() != b.String() {
		t.Errorf("two demo runs differ:\n%s", lineDiff(a.String(), b.String()))
	}
	if dir := os.TempDir(); strings.Contains(a.String(), dir) {
		t.Errorf("the transcript mentions the temporary directory %s", dir)
	}
}

// lineDiff is a unified diff from want to got.
func lineDiff(want, got string) string {
	return goldenfile.Diff("want", []byte(want), "got", []byte(got))
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 2, "usage: harness"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"demo", "extra"}, 2, "demo takes no arguments"},
		{[]string{"prompt", "extra"}, 2, "prompt takes no arguments"},
		{[]string{"mcp", "-port", "80"}, 2, "flag provided but not defined: -port"},
		{[]string{"mcp", "stdio"}, 2, "mcp takes no arguments"},
		{[]string{"help"}, 0, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, io.NopCloser(strings.NewReader("")), &stdout, &stderr)
		if code != tc.code {
			t.Errorf("harness %v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, stderr.String())
		}
		if !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("harness %v: stderr %q does not contain %q", tc.args, stderr.String(), tc.stderr)
		}
		if tc.code == 2 && !strings.Contains(stderr.String(), "Commands:") {
			t.Errorf("harness %v: a usage error must print the help; stderr %q", tc.args, stderr.String())
		}
		if tc.code == 0 && !strings.Contains(stdout.String(), "Commands:") {
			t.Errorf("harness %v: stdout %q is not the help", tc.args, stdout.String())
		}
	}
}

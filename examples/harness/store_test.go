package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cordiskit/cordiskit/internal/pgtest"
)

// mcpRun runs the mcp command with args for one client named name, which calls tools
// in order and returns their structured results; the command ends when the client goes.
func mcpRun(t *testing.T, args []string, name string, calls ...*mcp.CallToolParams) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- runMCP(ctx, args, st, io.Discard) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, c := range calls {
		res, err := cs.CallTool(ctx, c)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.Name, err, res)
		}
		var m map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &m)
		out = append(out, m)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Fatalf("mcp %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// restartKeepsPlugins runs the mcp command with args three times: a client defines and
// runs clock-1; the same client, in the next process, finds it running as run-2 and its
// next define is clock-2 and pkg-2 (ids continue); another client finds none of it. It
// returns the cordis_inspect_self call, for the caller's own checks.
func restartKeepsPlugins(t *testing.T, args []string) *mcp.CallToolParams {
	t.Helper()
	define := &mcp.CallToolParams{Name: "cordis_define", Arguments: map[string]any{
		"plugin": map[string]any{"kind": "new", "idPrefix": "clock"}, "name": "Clock", "purpose": "Shows the time.",
		"code": map[string]any{"host": "return (ctx) => {}"}}}
	got := mcpRun(t, args, "tester", define,
		&mcp.CallToolParams{Name: "cordis_run", Arguments: map[string]any{"pluginId": "clock-1", "packageId": "pkg-1", "mode": "run"}})
	if got[0]["pluginId"] != "clock-1" || got[1]["status"] != "running" {
		t.Fatalf("first process: %v", got)
	}
	self := &mcp.CallToolParams{Name: "cordis_inspect_self", Arguments: map[string]any{}}
	got = mcpRun(t, args, "tester", self, define)
	if s, _ := json.Marshal(got[0]); !strings.Contains(string(s), `"pluginId":"clock-1"`) || !strings.Contains(string(s), `"pluginRunId":"run-2"`) {
		t.Fatalf("the same client in the next process sees %s, want clock-1 running as run-2", s)
	}
	if got[1]["pluginId"] != "clock-2" || got[1]["packageId"] != "pkg-2" {
		t.Fatalf("define in the next process: %v, want clock-2 pkg-2", got[1])
	}
	if s, _ := json.Marshal(mcpRun(t, args, "other", self)[0]); strings.Contains(string(s), "clock-1") {
		t.Fatalf("another client sees %s", s)
	}
	return self
}

// TestMCPStoreRestart: with -store, a Plugin the client defined and ran is there, running
// again, when the same client connects to a restarted process; ids continue.
func TestMCPStoreRestart(t *testing.T) {
	work, state := t.TempDir(), t.TempDir()
	args := []string{"-dir", work, "-state", state, "-store"}
	self := restartKeepsPlugins(t, args)
	// -session names the session explicitly.
	if s, _ := json.Marshal(mcpRun(t, append(args, "-session", "mcp:tester"), "renamed", self)[0]); !strings.Contains(string(s), "clock-1") {
		t.Fatalf("-session mcp:tester sees %s, want clock-1", s)
	}
	if _, err := os.Stat(filepath.Join(state, "definitions.db")); err != nil {
		t.Fatalf("the definitions are not in the state directory: %v", err)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Fatalf("the work directory, which the fs service serves, holds %v", entries)
	}
}

// TestMCPStoreDSNRestart: with -store-dsn, the definitions live in PostgreSQL — a Plugin
// the client defined and ran is there, running again, when the same client connects to a
// new process on the same database, and ids continue; nothing is written to the state
// directory.
func TestMCPStoreDSNRestart(t *testing.T) {
	dsn := pgtest.DSN(t)
	work, state := t.TempDir(), t.TempDir()
	self := restartKeepsPlugins(t, []string{"-dir", work, "-state", state, "-store-dsn", dsn})
	if entries, _ := os.ReadDir(state); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "definitions.db" }) {
		t.Fatal("-store-dsn wrote definitions.db to the state directory")
	}
	// The environment variable is the flag's default.
	t.Setenv(storeDSNEnv, dsn)
	if s, _ := json.Marshal(mcpRun(t, []string{"-dir", work, "-state", state}, "tester", self)[0]); !strings.Contains(string(s), "clock-2") {
		t.Fatalf("with $%s the client sees %s, want its Plugins", storeDSNEnv, s)
	}
}

// TestStoreDSNRefused: a password on the command line, -store beside a DSN, and a
// -store-lease without a DSN or under a second are refused before anything is opened,
// with what to do instead.
func TestStoreDSNRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"-store-dsn", "postgres://cordis:secret@db.example/cordis"}, "", "holds a password"},
		{[]string{"-store-dsn", "postgresql://cordis@db.example/cordis?password=secret"}, "", "holds a password"},
		{[]string{"-store-dsn", "host=db.example user=cordis password=secret dbname=cordis"}, "", "put the whole DSN in $CORDIS_STORE_DSN"},
		{[]string{"-store", "-store-dsn", "postgres://cordis@db.example/cordis"}, "", "use one"},
		{[]string{"-store"}, "postgres://cordis@db.example/cordis", "use one"},
		{[]string{"-store-lease", "2s"}, "", "it needs -store-dsn DSN"},
		{[]string{"-store", "-store-lease", "2s"}, "", "it needs -store-dsn DSN"},
		{[]string{"-store-dsn", "postgres://cordis@db.example/cordis", "-store-lease", "500ms"}, "", "-store-lease 500ms is under 1s"},
		{[]string{"-store-lease", "0s"}, "postgres://cordis@db.example/cordis", "use 1s or more"},
		{[]string{"-store-dsn", "postgres://cordis@db.example/cordis", "-store-lease", "2"}, "", "invalid value"},
	} {
		t.Setenv(storeDSNEnv, tc.env)
		err := runMCP(context.Background(), tc.args, nil, io.Discard)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("mcp %v with $%s=%q: %v, want a usage error saying %q", tc.args, storeDSNEnv, tc.env, err, tc.want)
		}
	}
	for dsn, want := range map[string]bool{
		"postgres://cordis@db.example/cordis":          false,
		"postgres://cordis:@db.example/cordis":         true,
		"host=/run/postgresql dbname=cordis":           false,
		"host=db.example passwordless=1 dbname=cordis": false,
	} {
		if got := dsnHasPassword(dsn); got != want {
			t.Errorf("dsnHasPassword(%q) = %v, want %v", dsn, got, want)
		}
	}
}

package agent_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cordiskit/cordiskit/examples/harness/agent"
	"github.com/cordiskit/cordiskit/kit"
)

func TestFlushPersistsKV(t *testing.T) {
	work, state := t.TempDir(), t.TempDir()
	rt, err := agent.New(&agent.Options{WorkDir: work, StateDir: state, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	rt.Store().Set("user", "ada")
	if err := rt.Flush(context.Background(), "s1", "end of turn"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(state, agent.KVFile))
	if err != nil || string(b) != "{\n  \"user\": \"ada\"\n}\n" {
		t.Fatalf("%s: %q, %v", agent.KVFile, b, err)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("the runtime wrote its state into the work directory: %v", entries)
	}
	rt.Store().Set("lang", "go") // saved by Close's shutdown flush
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	again := newRuntimeState(t, work, state)
	if got := again.Store().Snapshot(); len(got) != 2 || got["user"] != "ada" || got["lang"] != "go" {
		t.Fatalf("reloaded kv: %v", got)
	}
	// A flush listener's error fails the flush; the others still run.
	start(t, again, &kit.Plugin{Name: "broken-saver", Apply: func(c *kit.Context) error {
		_, err := agent.SessionFlush.On(c, func(context.Context, agent.SessionFlushEvent) error { return errors.New("disk full") })
		return err
	}})
	again.Store().Set("after", "1")
	if err := again.Flush(context.Background(), "s1", "end of turn"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Flush err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(state, agent.KVFile)); !strings.Contains(string(b), "after") {
		t.Fatal("kv-persist did not run next to the failing listener")
	}
}

func TestStateDirOutsideWorkDir(t *testing.T) {
	work := t.TempDir()
	for _, state := range []string{work, filepath.Join(work, ".harness"), filepath.Join(work, "a", "..", "b")} {
		_, err := agent.New(&agent.Options{WorkDir: work, StateDir: state, Logger: quiet})
		if err == nil || !strings.Contains(err.Error(), "inside the work directory") {
			t.Errorf("StateDir %s: err = %v, want a refusal", state, err)
		}
	}
	// Without a state directory nothing is persisted, and nothing is written anywhere.
	rt := newRuntimeState(t, work, "")
	rt.Store().Set("k", "v")
	if err := rt.Flush(context.Background(), "s", "test"); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("the work directory holds %v", entries)
	}
}

// syncBuf is a log sink safe for the runtime's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Every way of breaking the kv state file leaves a runtime that boots, reports the file,
// sets it aside, and saves and reloads again.
func TestBrokenStateIsSetAside(t *testing.T) {
	kvPath := func(state string) string { return filepath.Join(state, agent.KVFile) }
	write := func(content string) func(t *testing.T, state string) {
		return func(t *testing.T, state string) {
			if err := os.WriteFile(kvPath(state), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A compact file under the size cap whose entries cost more than the store's budget
	// once laid out as the store saves them (4 bytes more per entry): ten entries whose
	// compact form is 8 bytes short of the budget.
	const entries = 10
	val := strings.Repeat("x", (agent.MaxKVBytes-8-(2*entries+1)-entries*len(`"k0"""`))/entries)
	var tooMany strings.Builder
	tooMany.WriteString("{")
	for i := range entries {
		if i > 0 {
			tooMany.WriteString(",")
		}
		tooMany.WriteString(`"k` + strconv.Itoa(i) + `":"` + val + `"`)
	}
	tooMany.WriteString("}")
	if n := tooMany.Len(); n > agent.MaxKVBytes {
		t.Fatalf("the over-budget file is %d bytes, more than the cap", n)
	}
	for _, tc := range []struct {
		name   string
		break_ func(t *testing.T, state string)
		reason string
	}{
		{"not JSON", write("{oops"), "not a JSON object of strings"},
		{"an array", write("[1,2]"), "not a JSON object of strings"},
		{"numbers", write(`{"a":1}`), "not a JSON object of strings"},
		{"oversized", write(`{"a":"` + strings.Repeat("x", agent.MaxKVBytes+64) + `"}`), "larger than"},
		{"a directory", func(t *testing.T, state string) {
			if err := os.MkdirAll(filepath.Join(kvPath(state), "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "it is a directory"},
		{"a FIFO", func(t *testing.T, state string) {
			if err := syscall.Mkfifo(kvPath(state), 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "named pipe"},
		{"unreadable", func(t *testing.T, state string) {
			if os.Geteuid() == 0 {
				t.Skip("root reads every file")
			}
			write(`{"a":"b"}`)(t, state)
			if err := os.Chmod(kvPath(state), 0); err != nil {
				t.Fatal(err)
			}
		}, "permission denied"},
		{"over the store's budget", write(tooMany.String()), "more than the kv store's budget"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, state := t.TempDir(), t.TempDir()
			tc.break_(t, state)
			logs := &syncBuf{}
			rt, err := agent.New(&agent.Options{WorkDir: work, StateDir: state, Logger: slog.New(slog.NewTextHandler(logs, nil))})
			if err != nil {
				t.Fatalf("New on a broken state file: %v", err)
			}
			defer rt.Close(context.Background())
			if !strings.Contains(logs.String(), "set aside") || !strings.Contains(logs.String(), tc.reason) {
				t.Errorf("the log does not report the file (%q):\n%s", tc.reason, logs.String())
			}
			if bad, _ := filepath.Glob(kvPath(state) + ".bad-*"); len(bad) != 1 {
				t.Errorf("set-aside files: %v, want one", bad)
			}
			if n := len(rt.Store().Keys()); n != 0 {
				t.Errorf("the store starts with %d keys", n)
			}
			roundTrip(t, rt, work, state)
		})
	}
}

// roundTrip checks that rt saves, and that a restart on the same directories loads it.
func roundTrip(t *testing.T, rt *agent.Runtime, work, state string) {
	t.Helper()
	if err := rt.Store().Set("works", "yes"); err != nil {
		t.Fatal(err)
	}
	if err := rt.Flush(context.Background(), "s", "test"); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	again := newRuntimeState(t, work, state)
	if got := again.Store().Get("works"); got != "yes" {
		t.Fatalf("after a restart the store holds %v", again.Store().Snapshot())
	}
}

// The state file broken while the runtime runs: the next flush sets it aside and saves.
func TestStateBrokenWhileRunning(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(path string) error
	}{
		{"a directory", func(p string) error { return os.Mkdir(p, 0o755) }},
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"a dangling link", func(p string) error { return os.Symlink("nowhere", p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, state := t.TempDir(), t.TempDir()
			rt := newRuntimeState(t, work, state)
			path := filepath.Join(state, agent.KVFile)
			os.Remove(path)
			if err := tc.break_(path); err != nil {
				t.Skip(err)
			}
			roundTrip(t, rt, work, state)
			if bad, _ := filepath.Glob(path + ".bad-*"); len(bad) != 1 {
				t.Errorf("set-aside files: %v, want one", bad)
			}
		})
	}
	t.Run("the state directory replaced by a file", func(t *testing.T) {
		work, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
		rt := newRuntimeState(t, work, state)
		if err := os.RemoveAll(state); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(state, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		roundTrip(t, rt, work, state)
	})
}

// The store refuses what would make its file larger than the loader reads, so whatever a
// flush saved, the next boot loads.
func TestKVBudget(t *testing.T) {
	work, state := t.TempDir(), t.TempDir()
	rt := newRuntimeState(t, work, state)
	s := rt.Store()
	big := strings.Repeat("<", agent.MaxKVBytes/6-2) // HTML-escaped: 6 bytes each when saved; 3 bytes to spare
	if err := s.Set("big", big); err != nil {
		t.Fatalf("a value that fits: %v", err)
	}
	if err := s.Set("more", "x"); !errors.Is(err, agent.ErrKVFull) || !strings.Contains(err.Error(), "delete keys") {
		t.Fatalf("Set past the budget: %v, want ErrKVFull with a next step", err)
	}
	if s.Has("more") {
		t.Fatal("a refused Set stored its value")
	}
	if err := rt.Flush(context.Background(), "s", "test"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(state, agent.KVFile))
	if err != nil || fi.Size() > agent.MaxKVBytes+8 {
		t.Fatalf("saved %v bytes (%v), budget %d", fi.Size(), err, agent.MaxKVBytes)
	}
	again := newRuntimeState(t, work, state)
	if again.Store().Get("big") != big {
		t.Fatal("a full store did not load again")
	}
	// Replacing and deleting give the room back.
	if !s.Delete("big") || s.Set("more", strings.Repeat("y", 1000)) != nil {
		t.Fatal("no room after a delete")
	}
}

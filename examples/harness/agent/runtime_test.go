package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/examples/harness/agent"
	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newRuntime boots a runtime in the work directory dir with a fresh state directory.
func newRuntime(t *testing.T, dir string) *agent.Runtime {
	t.Helper()
	return newRuntimeState(t, dir, t.TempDir())
}

// newRuntimeState boots a runtime in the work directory dir with the state directory state.
func newRuntimeState(t *testing.T, dir, state string) *agent.Runtime {
	t.Helper()
	rt, err := agent.New(&agent.Options{WorkDir: dir, StateDir: state, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

// start runs a plugin on the runtime's root and fails the test if it does not load.
func start(t *testing.T, rt *agent.Runtime, p *kit.Plugin) *kit.Fiber {
	t.Helper()
	f := rt.Context().Plugin(p)
	if err := f.Err(); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestNewValidatesWorkDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string]*agent.Options{
		"nil options": nil,
		"empty":       {},
		"missing":     {WorkDir: filepath.Join(t.TempDir(), "nope")},
		"a file":      {WorkDir: file},
	} {
		if rt, err := agent.New(opts); err == nil {
			rt.Close(context.Background())
			t.Errorf("%s: New succeeded", name)
		}
	}
}

func TestRuntimeBoots(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	states := map[string]kit.State{}
	for _, f := range rt.Context().Fibers() {
		states[f.Name] = f.State
	}
	for _, name := range []string{"fs", "exec", "kv", "kv-persist", "mcpkit/invoker"} {
		if states[name] != kit.StateActive {
			t.Errorf("plugin %s is %v", name, states[name])
		}
	}
	files, ok1 := agent.FS.Get(rt.Context())
	ex, ok2 := agent.Exec.Get(rt.Context())
	store, ok3 := agent.KV.Get(rt.Context())
	if !ok1 || !ok2 || !ok3 || store != rt.Store() {
		t.Fatalf("services: fs %v, exec %v, kv %v", ok1, ok2, ok3)
	}
	if err := files.WriteFile(context.Background(), "hello.txt", "hi"); err != nil {
		t.Fatal(err)
	}
	if res, err := ex.Run(context.Background(), agent.Command{Program: "cat", Args: []string{"hello.txt"}}); err == nil && res.Stdout != "hi" {
		t.Errorf("exec does not run in the fs root: %+v", res) // err: no cat (Windows) is fine
	}
}

func TestBeginTurn(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	var mu sync.Mutex
	var seen []string
	start(t, rt, &kit.Plugin{Name: "turn-log", Apply: func(c *kit.Context) error {
		_, err := agent.TurnStart.On(c, func(e agent.TurnStartEvent) {
			mu.Lock()
			seen = append(seen, fmt.Sprintf("%s#%d:%s", e.Session, e.Turn, e.Prompt))
			mu.Unlock()
		})
		return err
	}})
	turns := []int{rt.BeginTurn("s1", "hi"), rt.BeginTurn("s1", "again"), rt.BeginTurn("s2", "other")}
	if fmt.Sprint(turns) != "[1 2 1]" {
		t.Errorf("turn numbers %v", turns)
	}
	if got := strings.Join(seen, " "); got != "s1#1:hi s1#2:again s2#1:other" {
		t.Errorf("agent/turn-start payloads: %s", got)
	}
}

// noteTool writes a note through the fs service: a tool that uses a service.
func noteTool(files agent.FileSystem) kit.Tool {
	return kit.Tool{
		ToolSchema: kit.ToolSchema{
			Name:        "write_note",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"text":{"type":"string"}},"required":["name","text"]}`),
		},
		Execute: func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			var args struct{ Name, Text string }
			if err := json.Unmarshal(in, &args); err != nil {
				return nil, err
			}
			p := "notes/" + args.Name
			if err := files.WriteFile(ctx, p, args.Text); err != nil {
				return nil, err
			}
			return json.Marshal(p)
		},
	}
}

func TestCallToolGoesThroughPreExecute(t *testing.T) {
	dir := t.TempDir()
	rt := newRuntime(t, dir)
	start(t, rt, &kit.Plugin{Name: "notes", Inject: []string{"fs", "tools"}, Apply: func(c *kit.Context) error {
		files, _ := agent.FS.Get(c)
		tools, _ := kit.ToolsService.Get(c)
		_, err := tools.Register(c, noteTool(files))
		return err
	}})
	if tools := rt.Tools(); len(tools) != 1 || tools[0].Name != "write_note" {
		t.Fatalf("Tools() = %+v", tools)
	}
	var calls []string
	start(t, rt, &kit.Plugin{Name: "policy", Apply: func(c *kit.Context) error {
		_, err := agent.PreExecute.On(c, func(ctx context.Context, e agent.PreExecuteEvent, next func() (agent.Decision, error)) (agent.Decision, error) {
			calls = append(calls, string(e.Session)+":"+e.Tool+":"+e.Input)
			switch {
			case strings.Contains(e.Input, "forbidden"):
				return agent.Decision{Reason: "notes named forbidden are not allowed; pick another name"}, nil
			case strings.Contains(e.Input, "shout"):
				d, err := next()
				d.Input = strings.ReplaceAll(e.Input, "shout", "SHOUT")
				return d, err
			case strings.Contains(e.Input, "break"):
				d, err := next()
				d.Input = `{"name":7}`
				return d, err
			case strings.Contains(e.Input, "crash"):
				return agent.Decision{}, errors.New("policy store unavailable")
			}
			return next()
		})
		return err
	}})

	tests := []struct {
		name, input string
		want        string // the result, or a substring of the error
		wantIs      error
		file, text  string // a file the call must have written
	}{
		{name: "allowed", input: `{"name":"a.txt","text":"hello"}`, want: `"notes/a.txt"`, file: "notes/a.txt", text: "hello"},
		{name: "rewritten", input: `{"name":"b.txt","text":"shout"}`, want: `"notes/b.txt"`, file: "notes/b.txt", text: "SHOUT"},
		{name: "vetoed", input: `{"name":"forbidden","text":"x"}`, want: "pick another name", wantIs: agent.ErrVetoed},
		{name: "rewrite is validated", input: `{"name":"c","text":"break"}`, want: `invalid argument "name"`, wantIs: invoke.ErrInvalidArguments},
		{name: "listener error", input: `{"name":"d","text":"crash"}`, want: "policy store unavailable"},
		{name: "bad arguments", input: `{"name":"e"}`, want: `missing properties: ["text"]`, wantIs: invoke.ErrInvalidArguments},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := rt.CallTool(context.Background(), "s1", "write_note", json.RawMessage(tt.input))
			if tt.file != "" {
				if err != nil || string(out) != tt.want {
					t.Fatalf("CallTool = %s, %v; want %s", out, err, tt.want)
				}
				if b, _ := os.ReadFile(filepath.Join(dir, tt.file)); string(b) != tt.text {
					t.Fatalf("%s holds %q, want %q", tt.file, b, tt.text)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.wantIs != nil && !errors.Is(err, tt.wantIs)) {
				t.Fatalf("err = %v; want %q (%v)", err, tt.want, tt.wantIs)
			}
		})
	}
	if calls[0] != `s1:write_note:{"name":"a.txt","text":"hello"}` {
		t.Errorf("pre-execute saw %q", calls[0])
	}
	if _, err := rt.CallTool(context.Background(), "s1", "nope", nil); !errors.Is(err, kit.ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
}

// memFS is another implementation of the fs seam.
type memFS struct {
	mu    sync.Mutex
	files map[string]string
}

func (m *memFS) ReadFile(ctx context.Context, p string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.files[p]
	if !ok {
		return "", fs.ErrNotExist
	}
	return s, nil
}

func (m *memFS) WriteFile(ctx context.Context, p, content string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[p] = content
	return nil
}

func (m *memFS) List(context.Context, string) ([]agent.FileInfo, error) { return nil, nil }

func (m *memFS) Stat(context.Context, string) (agent.FileInfo, error) { return agent.FileInfo{}, nil }

// fs is a seam: replace its provider and its dependents follow.
func TestFSSeamIsReplaceable(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	var seen []string
	notes := start(t, rt, &kit.Plugin{Name: "notes", Inject: []string{agent.FS.Key()}, Apply: func(c *kit.Context) error {
		files, _ := agent.FS.Get(c)
		s, _ := files.ReadFile(context.Background(), "notes.txt")
		seen = append(seen, s)
		return nil
	}})
	for _, f := range rt.Context().Fiber().Children() {
		if f.Name() == "fs" {
			f.Dispose(context.Background())
		}
	}
	if st := notes.State(); st != kit.StatePending {
		t.Fatalf("a dependent of fs without fs is %v", st)
	}
	mem := &memFS{files: map[string]string{"notes.txt": "from memory"}}
	start(t, rt, &kit.Plugin{Name: "mem-fs", Apply: func(c *kit.Context) error { return agent.FS.Provide(c, mem) }})
	if st := notes.State(); st != kit.StateActive || fmt.Sprint(seen) != "[ from memory]" {
		t.Fatalf("the dependent on the new fs: %v, read %q", st, seen)
	}
}

package invoke_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
)

func TestInvoke(t *testing.T) {
	root := newRuntime(t)
	nested := `{"type":"object","properties":{
		"files":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
		"opt":{"$ref":"#/$defs/Opt"},
		"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}},
		"$defs":{"Opt":{"type":"object","properties":{"level":{"enum":["low","high"]}}}}}`
	mount(t, root, "tools-under-test",
		echo(), failing(),
		rawTool("nested", nested, "", func(map[string]any) (any, error) { return "ok", nil }),
		rawTool("anything", "", "", func(args map[string]any) (any, error) { return len(args), nil }),
		rawTool("broken", `{"type":"object","properties":{"x":{"type":"string","pattern":"("}}}`, "", func(map[string]any) (any, error) { return nil, nil }),
	)
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, tool, args string
		want             string // the result, when no error is expected
		wantErr          string // a substring of the error
		wantPath         string // the ArgumentError path, when one is expected
		wantIs           error
	}{
		{name: "valid", tool: "echo", args: `{"text":"hi","times":2}`, want: `{"text":"hi"}`},
		{name: "wrong type names the field", tool: "echo", args: `{"text":1}`, wantErr: `invalid argument "text"`, wantPath: "text", wantIs: invoke.ErrInvalidArguments},
		{name: "constraint names the field", tool: "echo", args: `{"text":"a","times":0}`, wantErr: "minimum", wantPath: "times", wantIs: invoke.ErrInvalidArguments},
		{name: "missing required", tool: "echo", args: `{}`, wantErr: `missing properties: ["text"]`, wantIs: invoke.ErrInvalidArguments},
		{name: "null args mean {}", tool: "echo", args: `null`, wantErr: `missing properties: ["text"]`, wantIs: invoke.ErrInvalidArguments},
		{name: "unexpected property", tool: "echo", args: `{"text":"a","txt":"b"}`, wantErr: `unexpected additional properties ["txt"]`, wantIs: invoke.ErrInvalidArguments},
		{name: "not an object", tool: "echo", args: `["hi"]`, wantErr: `want "object"`, wantIs: invoke.ErrInvalidArguments},
		{name: "not JSON", tool: "echo", args: `{text:`, wantErr: "not valid JSON", wantIs: invoke.ErrInvalidArguments},
		{name: "array element", tool: "nested", args: `{"files":[{"name":"a"},{"name":2}]}`, wantErr: "want \"string\"", wantPath: "files[].name"},
		{name: "through a $ref", tool: "nested", args: `{"opt":{"level":"max"}}`, wantErr: "enum", wantPath: "opt.level"},
		{name: "tuple position", tool: "nested", args: `{"pair":["a","b"]}`, wantPath: "pair[1]"},
		{name: "no schema takes anything", tool: "anything", args: `{"a":1,"b":[2]}`, want: `2`},
		{name: "no args to a schemaless tool", tool: "anything", args: ``, want: `0`},
		{name: "broken schema blames the plugin", tool: "broken", args: `{}`, wantErr: "input schema is invalid"},
		{name: "tool error passes through", tool: "fail", args: `{}`, wantErr: "disk is full"},
		{name: "unknown tool lists the tools", tool: "ehco", args: `{}`, wantErr: "the registered tools are: echo, fail, nested", wantIs: kit.ErrUnknownTool},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := inv.Invoke(context.Background(), tt.tool, json.RawMessage(tt.args))
			if tt.wantErr == "" && tt.wantPath == "" {
				if err != nil || string(out) != tt.want {
					t.Fatalf("Invoke = %s, %v; want %s", out, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Invoke = %s, want an error", out)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %q is not %v", err, tt.wantIs)
			}
			if tt.wantPath != "" {
				var ae *invoke.ArgumentError
				if !errors.As(err, &ae) || ae.Path != tt.wantPath || ae.Tool != tt.tool {
					t.Errorf("error %q: want an ArgumentError for %s at %q", err, tt.tool, tt.wantPath)
				}
			}
		})
	}

	names := []string{}
	for _, s := range inv.Tools() {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "echo fail nested anything broken" {
		t.Errorf("Tools() = %s", got)
	}
}

// A tool re-registered under the same name with another schema is validated against the
// new one: the cached schema is dropped on tools/change.
func TestInvokerCacheFollowsRegistry(t *testing.T) {
	root := newRuntime(t)
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		t.Fatal(err)
	}
	tool := func(typ string) kit.Tool {
		return rawTool("t", `{"type":"object","properties":{"x":{"type":"`+typ+`"}}}`, "", func(map[string]any) (any, error) { return typ, nil })
	}
	args := json.RawMessage(`{"x":1}`)
	first := mount(t, root, "first", tool("string"))
	if _, err := inv.Invoke(context.Background(), "t", args); !errors.Is(err, invoke.ErrInvalidArguments) {
		t.Fatalf("against a string schema: %v", err)
	}
	first.Dispose(context.Background())
	mount(t, root, "second", tool("integer"))
	if out, err := inv.Invoke(context.Background(), "t", args); err != nil || string(out) != `"integer"` {
		t.Fatalf("against the new integer schema: %s, %v", out, err)
	}
}

func TestInvokerDetaches(t *testing.T) {
	root := newRuntime(t)
	mount(t, root, "tools-under-test", echo())
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := inv.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := inv.Invoke(context.Background(), "echo", nil); !errors.Is(err, invoke.ErrDetached) {
		t.Fatalf("Invoke after Close: %v", err)
	}
	if inv.Tools() != nil {
		t.Fatal("Tools after Close is not nil")
	}

	// Without the tool registry the invoker waits, pending, like any plugin injecting it.
	inv, err = invoke.NewInvoker(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range root.Fiber().Children() {
		if f.Name() == "tools" {
			f.Dispose(context.Background())
		}
	}
	if st := inv.Fiber().State(); st != kit.StatePending {
		t.Fatalf("invoker state without a registry: %v", st)
	}
	if _, err := inv.Invoke(context.Background(), "echo", nil); !errors.Is(err, invoke.ErrDetached) {
		t.Fatalf("Invoke without a registry: %v", err)
	}
}

func TestNewInvokerOnDisposedContext(t *testing.T) {
	root := newRuntime(t)
	f := root.Plugin(&kit.Plugin{Name: "gone", Apply: func(*kit.Context) error { return nil }})
	f.Dispose(context.Background())
	if _, err := invoke.NewInvoker(f.Context()); err == nil {
		t.Fatal("NewInvoker on a disposed fiber succeeded")
	}
}

// Calls racing registrations and their cache invalidations must not race (go test -race).
//
// The workers call a tool that stays registered while others come and go: calling a tool
// while it is being registered trips a kit bug (Tools.Register publishes the entry before
// its scope is set; a concurrent Call dereferences the nil scope), reported separately.
func TestInvokeConcurrentWithRegistry(t *testing.T) {
	root := newRuntime(t)
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		t.Fatal(err)
	}
	mount(t, root, "stable", echo())
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				out, err := inv.Invoke(context.Background(), "echo", json.RawMessage(`{"text":"x"}`))
				if err != nil || string(out) != `{"text":"x"}` {
					t.Errorf("worker %d: %s, %v", i, out, err)
					return
				}
			}
		})
	}
	for i := range 50 {
		tool := echo()
		tool.Name = fmt.Sprint("echo", i%3)
		mount(t, root, fmt.Sprint("p", i), tool).Dispose(context.Background())
	}
	close(stop)
	wg.Wait()
}

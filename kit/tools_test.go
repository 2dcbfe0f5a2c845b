package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

func echoTool(name string) kit.Tool {
	return kit.Tool{
		ToolSchema: kit.ToolSchema{Name: name, Description: "echoes", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Execute: func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			return in, nil
		},
	}
}

type addIn struct{ A, B int }
type addOut struct{ Sum int }

var addTool = kit.NewTool[addIn, addOut]("add")

func TestToolRegistry(t *testing.T) {
	root := newRoot(t, nil)
	tools, ok := kit.ToolsService.Get(root)
	if !ok {
		t.Fatal("tools service missing")
	}
	var changes []string
	listen(t, root, "watcher", func(c *kit.Context) error {
		_, err := kit.ToolsChange.On(c, func(e kit.ToolsChangeEvent) {
			changes = append(changes, e.Tool+map[bool]string{true: "+", false: "-"}[e.Registered])
		})
		return err
	})
	owner := listen(t, root, "owner", func(c *kit.Context) error {
		if _, err := tools.Register(c, echoTool("echo")); err != nil {
			return err
		}
		_, err := tools.Register(c, addTool.Bind(kit.ToolSchema{Description: "adds"}, func(ctx context.Context, in addIn) (addOut, error) {
			return addOut{in.A + in.B}, nil
		}))
		return err
	})
	out, err := tools.Call(context.Background(), "add", json.RawMessage(`{"A":2,"B":3}`))
	if err != nil || string(out) != `{"Sum":5}` {
		t.Fatalf("Call add = %s, %v", out, err)
	}
	if _, err := tools.Call(context.Background(), "add", json.RawMessage(`{"A":"x"}`)); err == nil || !strings.Contains(err.Error(), "add: the arguments do not fit its input schema") {
		t.Fatalf("bad input err = %v", err)
	}

	// Read-only views: mutating a returned schema does not reach the registry.
	s, _ := tools.Get("echo")
	s.InputSchema[0] = 'X'
	if again, _ := tools.Get("echo"); string(again.InputSchema) != `{"type":"object"}` {
		t.Fatalf("registry mutated through a view: %s", again.InputSchema)
	}
	if n := len(tools.Schemas()); n != 2 {
		t.Fatalf("Schemas: %d tools", n)
	}

	dup := root.Plugin(plugin("dup", nil, func(c *kit.Context) error {
		_, err := tools.Register(c, echoTool("echo"))
		return err
	}))
	if err := dup.Err(); !errors.Is(err, kit.ErrDuplicate) || !strings.Contains(err.Error(), `"owner"`) {
		t.Fatalf("duplicate tool err = %v, want ErrDuplicate naming the owner", err)
	}

	owner.Dispose(context.Background())
	if _, ok := tools.Get("echo"); ok {
		t.Fatal("tool survived its owner's disposal")
	}
	if _, err := tools.Call(context.Background(), "echo", nil); !errors.Is(err, kit.ErrUnknownTool) {
		t.Fatalf("call after dispose: %v", err)
	}
	if got := strings.Join(changes, " "); got != "echo+ add+ add- echo-" {
		t.Fatalf("tools/change events: %s", got)
	}
}

func TestToolPanicIsAnError(t *testing.T) {
	root := newRoot(t, nil)
	tools, _ := kit.ToolsService.Get(root)
	listen(t, root, "p", func(c *kit.Context) error {
		_, err := tools.Register(c, kit.Tool{ToolSchema: kit.ToolSchema{Name: "boom"}, Execute: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			panic("tool exploded")
		}})
		return err
	})
	if _, err := tools.Call(context.Background(), "boom", nil); !errors.Is(err, kit.ErrPanic) {
		t.Fatalf("err = %v", err)
	}
}

// A tool must never be callable before its registration is complete.
func TestToolCallDuringRegistration(t *testing.T) {
	root := newRoot(t, nil)
	tools, _ := kit.ToolsService.Get(root)
	f := listen(t, root, "p", noop)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 2000 {
			tools.Call(context.Background(), "racy", nil) // unknown or a result; never a panic
		}
	}()
	for i := 0; i < 200; i++ {
		off, err := tools.Register(f.Context(), echoTool("racy"))
		if err != nil {
			t.Fatal(err)
		}
		off()
	}
	<-done
}

// TestToolDeclBindDecodesStrictly: a declared tool's arguments are decoded strictly — a
// field the input type lacks, a value of another type or trailing data is refused with
// what to do, and the tool's function does not run; empty or null arguments are the zero
// input.
func TestToolDeclBindDecodesStrictly(t *testing.T) {
	var ran []addIn
	tool := addTool.Bind(kit.ToolSchema{Description: "adds"}, func(_ context.Context, in addIn) (addOut, error) {
		ran = append(ran, in)
		return addOut{in.A + in.B}, nil
	})
	const fix = "; call it again with only the fields the schema lists, each of the type it says"
	for _, tc := range []struct {
		args, out, err string
	}{
		{args: `{"A":2,"B":3}`, out: `{"Sum":5}`},
		{args: ``, out: `{"Sum":0}`},
		{args: ` null `, out: `{"Sum":0}`},
		{args: `{"A":2,"C":3}`, err: `add: the arguments do not fit its input schema (json: unknown field "C")` + fix},
		{args: `{"A":"2"}`, err: `add: the arguments do not fit its input schema (json: cannot unmarshal string into Go struct field addIn.A of type int)` + fix},
		{args: `{"A":2} {"B":3}`, err: `add: the arguments do not fit its input schema (data after the first JSON value)` + fix},
		{args: `{"A":2} }`, err: `add: the arguments do not fit its input schema (data after the first JSON value)` + fix},
		{args: "{\"A\":2}\n\t ", out: `{"Sum":2}`},
		{args: `[1,2]`, err: `add: the arguments do not fit its input schema (json: cannot unmarshal array into Go value of type kit_test.addIn)` + fix},
	} {
		ran = nil
		out, err := tool.Execute(context.Background(), json.RawMessage(tc.args))
		var got string
		if err != nil {
			got = err.Error()
		}
		if string(out) != tc.out || got != tc.err {
			t.Errorf("args %q: %s, %q; want %s, %q", tc.args, out, got, tc.out, tc.err)
		}
		if want := tc.err == ""; (len(ran) == 1) != want {
			t.Errorf("args %q: the function ran %d times", tc.args, len(ran))
		}
	}
}

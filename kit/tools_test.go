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
	if _, err := tools.Call(context.Background(), "add", json.RawMessage(`{"A":"x"}`)); err == nil || !strings.Contains(err.Error(), "decoding input") {
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

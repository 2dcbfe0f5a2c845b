package kit_test

import (
	"context"
	"fmt"

	"github.com/cordiskit/cordiskit/kit"
)

// TurnStart is an emit-mode event; its payload fields are the listener's parameters.
var TurnStart = kit.NewEvent[TurnStartEvent]("agent/turn-start")

// TurnStartEvent is the payload of TurnStart.
type TurnStartEvent struct {
	Agent string
	Turn  int
}

// Greeting is a service other plugins inject by key.
var Greeting = kit.NewService[func(string) string]("greeting")

// A plugin registers listeners in Apply; disposing its fiber removes them.
func Example() {
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())

	logger := root.Plugin(&kit.Plugin{
		Name: "turn-logger",
		Apply: func(c *kit.Context) error {
			_, err := TurnStart.On(c, func(e TurnStartEvent) {
				fmt.Printf("%s started turn %d\n", e.Agent, e.Turn)
			})
			return err
		},
	})
	TurnStart.Emit(root, TurnStartEvent{Agent: "main", Turn: 1})
	logger.Dispose(context.Background())
	TurnStart.Emit(root, TurnStartEvent{Agent: "main", Turn: 2}) // nobody listens any more
	fmt.Println(logger.State())
	// Output:
	// main started turn 1
	// disposed
}

// A plugin that injects a service waits, pending, until it is provided, and goes back to
// pending when its provider goes away.
func Example_inject() {
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())

	consumer := root.Plugin(&kit.Plugin{
		Name:   "consumer",
		Inject: []string{"greeting"},
		Apply: func(c *kit.Context) error {
			greet, _ := Greeting.Get(c)
			fmt.Println(greet("consumer"))
			return nil
		},
	})
	fmt.Println(consumer.State(), consumer.WaitingFor())

	provider := root.Plugin(&kit.Plugin{
		Name: "provider",
		Apply: func(c *kit.Context) error {
			return Greeting.Provide(c, func(name string) string { return "hello, " + name })
		},
	})
	fmt.Println(consumer.State())
	provider.Dispose(context.Background())
	fmt.Println(consumer.State())
	// Output:
	// pending [greeting]
	// hello, consumer
	// active
	// pending
}

// Waterfall listeners wrap the rest of the chain: call next to delegate, or return without
// it to decide.
func ExampleWaterfallEvent() {
	preExecute := kit.NewWaterfall[string, string]("tools/pre-execute")
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())

	root.Plugin(&kit.Plugin{Name: "policy", Apply: func(c *kit.Context) error {
		_, err := preExecute.On(c, func(ctx context.Context, tool string, next func() (string, error)) (string, error) {
			if tool == "rm" {
				return "deny", nil // veto: the rest of the chain never runs
			}
			return next()
		})
		return err
	}})
	allow := func() (string, error) { return "allow", nil }
	for _, tool := range []string{"ls", "rm"} {
		decision, _ := preExecute.Emit(context.Background(), root, tool, allow)
		fmt.Println(tool, decision)
	}
	// Output:
	// ls allow
	// rm deny
}

// Tools are registered through the "tools" service as effects of the registering fiber.
func ExampleTools() {
	type In struct{ Text string }
	type Out struct{ Length int }
	length := kit.NewTool[In, Out]("length")

	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())
	tools, _ := kit.ToolsService.Get(root)
	root.Plugin(&kit.Plugin{Name: "length-tool", Apply: func(c *kit.Context) error {
		_, err := tools.Register(c, length.Bind(kit.ToolSchema{Description: "counts bytes"},
			func(ctx context.Context, in In) (Out, error) { return Out{len(in.Text)}, nil }))
		return err
	}})
	out, _ := tools.Call(context.Background(), "length", []byte(`{"Text":"hello"}`))
	fmt.Println(string(out))
	// Output:
	// {"Length":5}
}

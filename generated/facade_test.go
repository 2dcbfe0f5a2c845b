package generated_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
)

// TestFacade mounts JavaScript through the generated core-tier façade: the tools/change
// adapter delivers payloads positionally, and the timer binding's sync methods, callbacks,
// disposers and async method work.
func TestFacade(t *testing.T) {
	ctx := context.Background()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	loop := sandbox.New(&sandbox.Options{Facade: generated.Facade})
	defer loop.Close(ctx)
	defer root.Fiber().Dispose(ctx)

	m, err := loop.Evaluate(ctx, "dyn-1", `
		const seen = [];
		return {
			name: 'probe',
			inject: ['timer'],
			apply(ctx) {
				ctx.on('tools/change', (tool, registered) => { seen.push(tool + ':' + registered) });
				const fired = [];
				const cancel = ctx.timer.setTimeout(0, () => fired.push('timeout'));
				const never = ctx.timer.setInterval(60000, () => fired.push('interval'));
				never();
				ctx.tools.register({
					name: 'probe',
					description: 'Reports what the plugin saw.',
					parameters: { type: 'object' },
					execute: async () => {
						await ctx.timer.sleep(20);
						return { seen, fired, cancel: typeof cancel, keys: Object.keys(ctx.timer).sort() };
					},
				});
			},
		}`)
	if err != nil {
		t.Fatal(err)
	}
	fiber, err := m.Start(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer fiber.Dispose(ctx)

	tools, _ := kit.ToolsService.Get(root)
	unregister, err := tools.Register(root, kit.Tool{
		ToolSchema: kit.ToolSchema{Name: "go_tool"},
		Execute:    func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	unregister()

	out, err := tools.Call(ctx, "probe", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Seen, Fired, Keys []string
		Cancel            string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	// The plugin's own tool registration comes first: it listened before registering.
	want := `[probe:true go_tool:true go_tool:false] [timeout] function [setInterval setTimeout sleep]`
	if s := fmt.Sprint(got.Seen, got.Fired, " ", got.Cancel, " ", got.Keys); s != want {
		t.Errorf("the plugin saw %s\nwant %s", s, want)
	}
}

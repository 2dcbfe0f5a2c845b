package sandbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
)

// Mount code registers a tool; the Go side calls it through the kit's registry.
func Example() {
	ctx := context.Background()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	sb := sandbox.New(nil) // usually &sandbox.Options{Facade: generated.Facade}
	defer sb.Close(ctx)
	defer root.Fiber().Dispose(ctx)

	m, err := sb.Evaluate(ctx, "dyn-1", `
		return {
			name: 'reverser',
			apply(ctx) {
				ctx.tools.register({
					name: 'reverse_text',
					description: 'Reverses text.',
					parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
					execute: ({ text }) => [...text].reverse().join(''),
				})
			},
		}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fiber, err := m.Start(ctx, root)
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, _ := kit.ToolsService.Get(root)
	out, err := tools.Call(ctx, "reverse_text", json.RawMessage(`{"text":"cordis"}`))
	fmt.Println(string(out), err)

	fiber.Dispose(ctx) // unmount: the tool goes away with its plugin
	m.Close(ctx)
	_, err = tools.Call(ctx, "reverse_text", json.RawMessage(`{"text":"x"}`))
	fmt.Println(err)
	// Output:
	// "sidroc" <nil>
	// kit: tool "reverse_text": unknown tool
}

// Errors are written for the model that wrote the code: what went wrong and the fix.
func ExampleSandbox_Evaluate_syntaxError() {
	sb := sandbox.New(nil)
	defer sb.Close(context.Background())
	_, err := sb.Evaluate(context.Background(), "dyn-2", "return {\n  name: 'x',\n  apply(ctx) {}\n});")
	fmt.Println(err)
	// Output:
	// dyn-2: mount code failed to parse at line 4, column 2: Unexpected token )
	//   4 | });
	//     |  ^
	// Brackets do not balance: the `)` at line 4, column 2 has no matching `(`. Ending the returned plugin object with `});` closes a call that was never opened; a plain `return { … }` ends with `}` (or `};`), never `)`.
}

// Mount code must return a plugin.
func ExampleSandbox_Evaluate_noReturn() {
	sb := sandbox.New(nil)
	defer sb.Close(context.Background())
	_, err := sb.Evaluate(context.Background(), "dyn-3", "const plugin = { apply(ctx) {} }")
	fmt.Println(err)
	// Output:
	// dyn-3: mount code returned undefined — did you forget `return`? The code is the body of an async function and must return a plugin, in one of two forms:
	//   ✓ return (ctx) => { … }
	//   ✓ return { name: '…', inject: ['…'], apply(ctx) { … } }
}

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

// A value that is small in the JavaScript heap can be huge once copied: here an array
// holding one array twice, ten levels deep, is 2^10 leaves as JSON. Every conversion has a
// budget (Limits.MaxNodes elements, Limits.MaxBytes bytes of strings), so the copy is
// refused where the budget runs out, with a message for the model that wrote the code.
func ExampleLimits_maxNodes() {
	ctx := context.Background()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	sb := sandbox.New(&sandbox.Options{Limits: &sandbox.Limits{MaxNodes: 100}})
	defer sb.Close(ctx)
	defer root.Fiber().Dispose(ctx)

	m, err := sb.Evaluate(ctx, "dyn-1", `
		let dag = [0]
		for (let i = 0; i < 10; i++) dag = [dag, dag]
		return (ctx) => ctx.tools.register({
			name: 'dag', description: 'Returns a DAG.', parameters: { type: 'object' },
			execute: () => dag,
		})`)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := m.Start(ctx, root); err != nil {
		fmt.Println(err)
		return
	}
	tools, _ := kit.ToolsService.Get(root)
	_, err = tools.Call(ctx, "dag", json.RawMessage(`{}`))
	fmt.Println(err)
	// Output:
	// dyn-1: tool "dag": the result is too large to return: result[0][0][0][0][1]: the value converts to more than 100 elements; shared references count each time they are copied (the bound is Limits.MaxNodes); pass less, or page it
}

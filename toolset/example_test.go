package toolset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/toolset"
)

// A model mounts a plugin that registers a tool for it, calls that tool, and unmounts the
// plugin again, which removes the tool.
func Example() {
	ctx := context.Background()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer root.Fiber().Dispose(ctx)
	ts, err := toolset.New(root, nil) // usually &toolset.Options{Catalog: cordisapi.Catalog, Facade: cordisapi.Facade}
	if err != nil {
		panic(err)
	}
	defer ts.Dispose(ctx)
	tools, _ := kit.ToolsService.Get(root) // cordis_inspect, cordis_mount and cordis_unmount are here

	code := `return { name: 'greeter', apply(ctx) {
		ctx.tools.register({ name: 'greet', description: 'greets someone',
			parameters: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
			execute: ({ who }) => ({ greeting: 'hello, ' + who }) })
	} }`
	args, _ := json.Marshal(map[string]string{"code": code})
	out, err := tools.Call(ctx, "cordis_mount", args)
	fmt.Println(string(out), err)

	out, err = tools.Call(ctx, "greet", json.RawMessage(`{"who":"gopher"}`))
	fmt.Println(string(out), err)

	out, err = tools.Call(ctx, "cordis_unmount", json.RawMessage(`{"id":"dyn-1"}`))
	fmt.Println(string(out), err)
	_, err = tools.Call(ctx, "greet", json.RawMessage(`{"who":"gopher"}`))
	fmt.Println("greet after unmount fails:", err != nil)
	// Output:
	// {"id":"dyn-1","pluginName":"greeter","state":"active","provides":[],"waitingFor":[]} <nil>
	// {"greeting":"hello, gopher"} <nil>
	// {"id":"dyn-1","pluginName":"greeter"} <nil>
	// greet after unmount fails: true
}

package runner_test

import (
	"context"
	"fmt"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// Go code of the runtime defines a Plugin for a session, runs it, and calls a handler of
// its host half — with params, as the go-sdk's CallTool takes them, and no run capability:
// the session on ctx scopes the call to that session's Plugins.
func ExampleRunner_Invoke() {
	root := kit.New(nil)
	r, err := runner.New(root, nil)
	if err != nil {
		panic(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.Dispose(ctx)
		_ = root.Fiber().Dispose(ctx)
	}()

	ctx := kit.WithSession(context.Background(), "alice")
	host := `return (ctx) => { harness.handle('greet', (args) => ({ greeting: 'hello, ' + args.name })) }`
	d, err := r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: dynamic.TargetNew, IDPrefix: "greet"},
		Name: "Greeter", Purpose: "Greets people by name.", Code: dynamic.Code{Host: &host}})
	if err != nil {
		panic(err)
	}
	run, err := r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Status == dynamic.StartRunning)

	out, err := r.Invoke(ctx, &runner.InvokeParams{PluginID: d.PluginID, Method: "greet", Args: map[string]string{"name": "Grace"}})
	fmt.Println(string(out), err)

	// Another session's code cannot reach alice's Plugin: it reads as one that is not running.
	_, err = r.Invoke(kit.WithSession(context.Background(), "bob"), &runner.InvokeParams{PluginID: d.PluginID, Method: "greet"})
	fmt.Println(err)
	// Output:
	// true
	// {"greeting":"hello, Grace"} <nil>
	// greet-1 is not running: it has no active host half (it was stopped or removed)
}

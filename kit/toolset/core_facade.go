package toolset

import (
	"context"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/dop251/goja"
)

// coreFacade is the kit's core-tier façade: the adapter that lets mount code listen to
// tools/change. It is written exactly as gen-cordis-api's façade emitter writes adapters
// (the binding contract of package sandbox) and is to be replaced by generated.Facade once
// generated/ carries facade_gen.go; the timer and tools services reach mount code through
// the ctx verbs (ctx.setTimeout, ctx.tools), not through service bindings.
var coreFacade = &sandbox.Facade{
	Events: map[string]sandbox.EventAdapter{
		kit.ToolsChange.Name(): func(r *sandbox.Realm, c *kit.Context, fn goja.Callable) (func(), error) {
			return kit.ToolsChange.On(c, func(p kit.ToolsChangeEvent) {
				err := r.Deliver(context.Background(), fn, func() []goja.Value {
					rt := r.Runtime()
					return []goja.Value{rt.ToValue(p.Tool), rt.ToValue(p.Registered)}
				}, nil)
				if err != nil {
					r.Logger().Warn("listener of tools/change failed", "err", err)
				}
			})
		},
	},
}

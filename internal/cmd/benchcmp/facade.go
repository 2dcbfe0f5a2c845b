package main

import (
	"fmt"

	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/sandbox/bind"
	"github.com/dop251/goja"
)

// Tick is the catalogued event plugin-body.js listens to in place of the anchors'
// 'some/event' (the kit's ctx.on accepts only catalogued events).
var Tick = kit.NewEvent[TickEvent]("bench/tick")

// TickEvent is Tick's payload, the anchors' Event{ID, Text}. Its fields, in order, are the
// arguments a JavaScript listener receives: (id, text).
type TickEvent struct {
	ID   int
	Text string
}

// EchoService is the Go service of the JS → Go figure.
var EchoService = kit.NewService[*Echo]("bench")

// Echo is a trivial Go service: the work behind its one method is the same on both sides
// of the JS → Go figure, so the difference is the binding.
type Echo struct{}

// Hello greets name.
func (*Echo) Hello(name string) string { return "hello, " + name }

// BenchTools provides the kit's tool registry under a second key. Mount code cannot reach
// the generated binding of the "tools" service under its own name (ctx.tools is the
// sandbox's own view of the registry), so the JS → Go figure injects it as
// ctx['bench-tools'], bound by generated.Facade's binder for "tools".
var BenchTools = kit.NewService[*kit.Tools]("bench-tools")

// HandTools provides the registry a third time, as ctx['bench-tools-by-hand'], bound by
// bindToolsByHand: the generated binding's own method written by hand.
var HandTools = kit.NewService[*kit.Tools]("bench-tools-by-hand")

// benchFacade is the bench's own façade tier, merged by the toolset with the kit's core
// tier. It is written exactly as the binding contract between generated façade code
// (facade_gen.go) and package sandbox prescribes: bind.PlainObject, Realm.Func, bind.String,
// Realm.Unlocked and a primitive bind.Value for the service; bind.DeliverEmit with
// positional primitive arguments for the event.
var benchFacade = &sandbox.Facade{
	Services: map[string]sandbox.ServiceBinder{
		"bench":               bindEcho,
		"bench-tools":         generated.Facade.Services[kit.ToolsService.Key()],
		"bench-tools-by-hand": bindToolsByHand,
	},
	Events: map[string]sandbox.EventAdapter{"bench/tick": adaptTick},
}

func bindEcho(r *sandbox.Realm, v any) (*goja.Object, error) {
	svc, ok := v.(*Echo)
	if !ok {
		return nil, fmt.Errorf("service bench: expected a *Echo, got %T", v)
	}
	return bind.PlainObject(r, bind.Prop("hello", r.Func("bench.hello", func(call goja.FunctionCall) goja.Value {
		name := bind.String[string](r, call.Argument(0), "bench.hello", "name")
		var res string
		r.Unlocked(func() { res = svc.Hello(name) })
		return bind.Value(r, res)
	}))), nil
}

// bindToolsByHand binds tools.owner as a person would following the binding contract, with
// what the generated binding does — the argument checked, the lock released around the Go
// call, a Go panic turned into a JavaScript Error, (T, false) as undefined — and none of
// bind's generic helpers around it.
func bindToolsByHand(r *sandbox.Realm, v any) (*goja.Object, error) {
	tools, ok := v.(*kit.Tools)
	if !ok {
		return nil, fmt.Errorf("service bench-tools-by-hand: expected a *kit.Tools, got %T", v)
	}
	return bind.PlainObject(r, bind.Prop("owner", r.Func("tools.owner", func(call goja.FunctionCall) goja.Value {
		name := bind.String[string](r, call.Argument(0), "tools.owner", "name")
		var (
			owner string
			found bool
		)
		r.Unlocked(func() { owner, found = tools.Owner(name) })
		if !found {
			return goja.Undefined()
		}
		return bind.Value(r, owner)
	}))), nil
}

func adaptTick(r *sandbox.Realm, c *kit.Context, fn goja.Callable) (func(), error) {
	return Tick.On(c, func(p TickEvent) {
		bind.DeliverEmit(r, `a listener of "bench/tick"`, fn, func() []goja.Value {
			return []goja.Value{bind.Value(r, p.ID), bind.Value(r, p.Text)}
		})
	})
}

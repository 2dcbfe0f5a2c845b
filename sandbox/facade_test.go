package sandbox

import (
	"context"
	"errors"
	"strings"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
)

// This file is a hand-written façade in the shape facade_gen.go has: a binder per
// service, an adapter per event, and a Facade tying them together. It uses only the
// binding contract.

// benchTick is a test event; payload fields are the JS listener's parameters.
var benchTick = kit.NewEvent[tickEvent]("bench/tick")

type tickEvent struct {
	ID   int
	Text string
}

// testAsk is a parallel event: the Go emitter awaits JS listeners.
var testAsk = kit.NewParallel[askEvent]("test/ask")

type askEvent struct{ Question string }

// greeterService is a Go service with a façade (Hello, Shout, Fetch) and a method the
// façade leaves out (Secret).
var greeterService = kit.NewService[*greeter]("greeter")

type greeter struct {
	root     *kit.Context
	secretOK bool
}

func (g *greeter) Hello(name string) string { return "hello, " + name }

// Shout emits bench/tick synchronously: the Go side of a sync method calling back into JS.
func (g *greeter) Shout(text string) int {
	benchTick.Emit(g.root, tickEvent{ID: 7, Text: text})
	return len(text)
}

func (g *greeter) Fetch(ctx context.Context, url string) (string, error) {
	if strings.HasPrefix(url, "bad:") {
		return "", errors.New("cannot fetch " + url)
	}
	return "body of " + url, nil
}

// Secret is not in the façade.
func (g *greeter) Secret() string { g.secretOK = true; return "secret" }

func bindGreeter(r *Realm, v any) (*goja.Object, error) {
	g, ok := v.(*greeter)
	if !ok {
		return nil, errors.New("greeter: unexpected Go type")
	}
	o := r.rt.NewObject()
	_ = o.Set("hello", r.Func("greeter.hello", func(call goja.FunctionCall) goja.Value {
		name := argString(r, call, 0, "greeter.hello", "name")
		var res string
		r.Unlocked(func() { res = g.Hello(name) })
		return r.rt.ToValue(res)
	}))
	_ = o.Set("shout", r.Func("greeter.shout", func(call goja.FunctionCall) goja.Value {
		text := argString(r, call, 0, "greeter.shout", "text")
		var res int
		r.Unlocked(func() { res = g.Shout(text) })
		return r.rt.ToValue(res)
	}))
	_ = o.Set("fetch", r.Func("greeter.fetch", func(call goja.FunctionCall) goja.Value {
		url := argString(r, call, 0, "greeter.fetch", "url")
		return r.promise(func(ctx context.Context) (func() goja.Value, error) {
			res, err := g.Fetch(ctx, url)
			if err != nil {
				return nil, err
			}
			return func() goja.Value { return r.rt.ToValue(res) }, nil
		})
	}))
	return o, nil
}

func adaptToolsChange(r *Realm, c *kit.Context, fn goja.Callable) (func(), error) {
	return kit.ToolsChange.On(c, func(e kit.ToolsChangeEvent) {
		r.deliverEmit(`a listener of "tools/change"`, fn, func() []goja.Value {
			return []goja.Value{r.rt.ToValue(e.Tool), r.rt.ToValue(e.Registered)}
		})
	})
}

func adaptBenchTick(r *Realm, c *kit.Context, fn goja.Callable) (func(), error) {
	return benchTick.On(c, func(e tickEvent) {
		r.deliverEmit(`a listener of "bench/tick"`, fn, func() []goja.Value {
			rt := r.rt
			return []goja.Value{rt.ToValue(e.ID), rt.ToValue(e.Text)}
		})
	})
}

func adaptTestAsk(r *Realm, c *kit.Context, fn goja.Callable) (func(), error) {
	return testAsk.On(c, func(ctx context.Context, e askEvent) error {
		return r.Deliver(ctx, fn, func() []goja.Value {
			return []goja.Value{r.rt.ToValue(e.Question)}
		}, nil)
	})
}

var testFacade = &Facade{
	Services: map[string]ServiceBinder{"greeter": bindGreeter},
	Events: map[string]EventAdapter{
		"tools/change": adaptToolsChange,
		"bench/tick":   adaptBenchTick,
		"test/ask":     adaptTestAsk,
	},
}

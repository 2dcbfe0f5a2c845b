package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"
)

// bareHost is the floor: the anchors' minimal goja host (anchors-bench/go/host.go), one
// runtime per plugin with a console of native no-ops, the body compiled and run under a
// 5 s interrupt timer, and apply(ctx) with a native ctx.on that stores the listener in a
// Go registry. Nothing is validated or bounded beyond that.
type bareHost struct {
	hooks map[string][]*bareHook
}

type bareHook struct {
	plugin *barePlugin
	fn     goja.Callable
}

type barePlugin struct {
	rt    *goja.Runtime
	name  string
	obj   *goja.Object
	hooks []*bareHook
	event goja.Value // the prebuilt event argument of this runtime
}

func newBareHost() *bareHost { return &bareHost{hooks: map[string][]*bareHook{}} }

// bareSource wraps a body the way the anchors do.
func bareSource(body string) string { return "(async () => {\n" + body + "\n})()" }

func (h *bareHost) mount(src string) (*barePlugin, error) {
	rt := goja.New()
	console := rt.NewObject()
	noop := func(goja.FunctionCall) goja.Value { return goja.Undefined() }
	_ = console.Set("log", noop)
	_ = console.Set("error", noop)
	_ = rt.Set("console", console)
	prg, err := goja.Compile("plugin.js", src, false)
	if err != nil {
		return nil, err
	}
	timer := time.AfterFunc(5*time.Second, func() { rt.Interrupt("plugin timed out") })
	defer timer.Stop()
	v, err := rt.RunProgram(prg)
	if err != nil {
		return nil, err
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok || p.State() != goja.PromiseStateFulfilled {
		return nil, errors.New("the body's promise did not fulfil")
	}
	obj := p.Result().ToObject(rt)
	pl := &barePlugin{rt: rt, obj: obj, name: obj.Get("name").String()}
	var inject []string
	if inj := obj.Get("inject"); inj != nil && !goja.IsUndefined(inj) {
		if err := rt.ExportTo(inj, &inject); err != nil {
			return nil, fmt.Errorf("inject: %w", err)
		}
	}
	apply, ok := goja.AssertFunction(obj.Get("apply"))
	if !ok {
		return nil, errors.New("plugin has no apply()")
	}
	if _, err := apply(obj, h.newCtx(pl)); err != nil {
		h.unmount(pl)
		return nil, err
	}
	return pl, nil
}

func (h *bareHost) newCtx(pl *barePlugin) *goja.Object {
	rt := pl.rt
	ctx := rt.NewObject()
	_ = ctx.Set("on", func(call goja.FunctionCall) goja.Value {
		name := call.Argument(0).String()
		fn, ok := goja.AssertFunction(call.Argument(1))
		if !ok {
			panic(rt.NewTypeError("ctx.on: listener must be a function"))
		}
		hk := &bareHook{plugin: pl, fn: fn}
		h.hooks[name] = append(h.hooks[name], hk)
		pl.hooks = append(pl.hooks, hk)
		return rt.ToValue(func(goja.FunctionCall) goja.Value { return rt.ToValue(h.off(name, hk)) })
	})
	return ctx
}

func (h *bareHost) off(name string, hk *bareHook) bool {
	hs := h.hooks[name]
	for i, x := range hs {
		if x == hk {
			h.hooks[name] = append(hs[:i:i], hs[i+1:]...)
			return true
		}
	}
	return false
}

// unmount removes the plugin's listeners and drops its runtime (Go GC does the rest).
func (h *bareHost) unmount(pl *barePlugin) {
	for name, hs := range h.hooks {
		kept := hs[:0]
		for _, x := range hs {
			if x.plugin != pl {
				kept = append(kept, x)
			}
		}
		clear(hs[len(kept):])
		if len(kept) == 0 {
			delete(h.hooks, name)
		} else {
			h.hooks[name] = kept
		}
	}
	pl.hooks, pl.obj, pl.event, pl.rt = nil, nil, nil, nil
}

// emit calls every listener of name with its runtime's prebuilt event object: the pure
// Go → JS call, no conversion.
func (h *bareHost) emit(name string, ev TickEvent) error {
	for _, hk := range h.hooks[name] {
		pl := hk.plugin
		if pl.event == nil {
			o := pl.rt.NewObject()
			_ = o.Set("id", ev.ID)
			_ = o.Set("text", ev.Text)
			pl.event = o
		}
		if _, err := hk.fn(goja.Undefined(), pl.event); err != nil {
			return err
		}
	}
	return nil
}

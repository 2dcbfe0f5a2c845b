package benchfix

import (
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"
)

// BareHost is the floor of the mount, heap and Go → JS figures: the anchors' minimal goja
// host (anchors-bench/go/host.go), one runtime per plugin with a console of native
// no-ops, the body compiled and run under a 5 s interrupt timer, and apply(ctx) with a
// native ctx.on that stores the listener in a Go registry. Nothing is validated or
// bounded beyond that. A BareHost is not safe for concurrent use.
type BareHost struct {
	hooks map[string][]*bareHook
}

type bareHook struct {
	plugin *BarePlugin
	fn     goja.Callable
}

// BarePlugin is one plugin mounted by a [BareHost]: its runtime and its listeners.
type BarePlugin struct {
	rt    *goja.Runtime
	name  string
	obj   *goja.Object
	hooks []*bareHook
	event goja.Value // the prebuilt event argument of this runtime
}

// NewBareHost returns a host with no plugins.
func NewBareHost() *BareHost { return &BareHost{hooks: map[string][]*bareHook{}} }

// BareSource wraps a plugin body the way the anchors do, as an async function called at
// once: the source [BareHost.Mount] takes.
func BareSource(body string) string { return "(async () => {\n" + body + "\n})()" }

// Mount runs src (see [BareSource]) in a new runtime and applies the plugin it returns.
func (h *BareHost) Mount(src string) (*BarePlugin, error) {
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
	pl := &BarePlugin{rt: rt, obj: obj, name: obj.Get("name").String()}
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
		h.Unmount(pl)
		return nil, err
	}
	return pl, nil
}

func (h *BareHost) newCtx(pl *BarePlugin) *goja.Object {
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

func (h *BareHost) off(name string, hk *bareHook) bool {
	hs := h.hooks[name]
	for i, x := range hs {
		if x == hk {
			h.hooks[name] = append(hs[:i:i], hs[i+1:]...)
			return true
		}
	}
	return false
}

// Listeners returns how many listeners of event name the mounted plugins hold.
func (h *BareHost) Listeners(name string) int { return len(h.hooks[name]) }

// Unmount removes the plugin's listeners and drops its runtime (Go GC does the rest).
func (h *BareHost) Unmount(pl *BarePlugin) {
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

// Emit calls every listener of name with its runtime's event object {id, text}, built
// on the first call and reused after: the pure Go → JS call, no conversion.
func (h *BareHost) Emit(name string, id int, text string) error {
	for _, hk := range h.hooks[name] {
		pl := hk.plugin
		if pl.event == nil {
			o := pl.rt.NewObject()
			_ = o.Set("id", id)
			_ = o.Set("text", text)
			pl.event = o
		}
		if _, err := hk.fn(goja.Undefined(), pl.event); err != nil {
			return err
		}
	}
	return nil
}

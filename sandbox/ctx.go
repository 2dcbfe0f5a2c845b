package sandbox

import (
	"context"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
)

// ctxMembers are the verbs of the ctx façade, in the order Object.keys lists them. They
// are the names [catalog.FacadeVerbs] documents, so what cordis_inspect and the markdown
// catalog print is what ctx has; member builds each one.
var ctxMembers = verbNames(catalog.FacadeVerbs)

// verbNames lists the member names of verbs once each, in order, without the "<key>" form
// (the injected services, which are not verbs).
func verbNames(verbs []catalog.Verb) []string {
	var names []string
	for _, v := range verbs {
		for _, n := range v.Names() {
			if n != "<key>" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// objectProtoNames resolve through the ctx façade's prototype (Object.prototype) instead of
// being denied, so String(ctx), ctx.hasOwnProperty(…) and the like behave normally; then
// and toJSON read as undefined so `await ctx` and JSON.stringify(ctx) do not throw.
var objectProtoNames = map[string]bool{
	"constructor": true, "toString": true, "toLocaleString": true, "valueOf": true,
	"hasOwnProperty": true, "isPrototypeOf": true, "propertyIsEnumerable": true,
	"__proto__": true, "__defineGetter__": true, "__defineSetter__": true,
	"__lookupGetter__": true, "__lookupSetter__": true, "then": true, "toJSON": true,
}

// A ctxFacade is the ctx one activation of a mount's apply receives: the verbs, the tools
// view and the injected services — nothing else. It is read-only. All methods run with the
// lock held.
type ctxFacade struct {
	r        *Realm
	c        *kit.Context
	inject   []string
	obj      *goja.Object
	members  []goja.Value // the verbs built so far, by their index in ctxMembers
	services map[string]goja.Value
	ended    atomic.Bool
	teardown teardownBudget // shared by the activation's effect disposers
	quota    [numQuotas]atomic.Int64
	share    timerShare // the wall time its timer callbacks ran (Limits.MaxTimerShare)
}

func newCtxFacade(r *Realm, c *kit.Context, inject []string) (*ctxFacade, error) {
	f := &ctxFacade{r: r, c: c, inject: inject, members: make([]goja.Value, len(ctxMembers))}
	// Registered first, so it is undone last: disposers that run on unload may still use ctx.
	if err := c.Effect(func() error { f.ended.Store(true); return nil }); err != nil {
		return nil, err
	}
	f.obj = r.rt.NewDynamicObject(f)
	return f, nil
}

func (f *ctxFacade) injects(key string) bool { return slices.Contains(f.inject, key) }

// Get implements goja.DynamicObject.
func (f *ctxFacade) Get(key string) goja.Value {
	if i := slices.Index(ctxMembers, key); i >= 0 {
		if f.members[i] == nil {
			f.members[i] = f.member(key)
		}
		return f.members[i]
	}
	if f.injects(key) {
		return f.service(key)
	}
	if objectProtoNames[key] {
		return nil
	}
	f.deny(key)
	return nil
}

// Has implements goja.DynamicObject: the verbs and the declared services.
func (f *ctxFacade) Has(key string) bool {
	return slices.Contains(ctxMembers, key) || f.injects(key)
}

// Keys implements goja.DynamicObject.
func (f *ctxFacade) Keys() []string {
	keys := slices.Clone(ctxMembers)
	for _, k := range f.inject {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// Set implements goja.DynamicObject: the façade is read-only.
func (f *ctxFacade) Set(key string, _ goja.Value) bool {
	f.r.throwf("ctx is read-only: cannot assign ctx.%s (keep your own state in variables of your plugin code)", key)
	return false
}

// Delete implements goja.DynamicObject.
func (f *ctxFacade) Delete(key string) bool {
	f.r.throwf("ctx is read-only: cannot delete ctx.%s", key)
	return false
}

// ctxOffers names every verb for the error a missing member throws (TestFacadeVerbsDocumentEveryMember
// checks it names each of ctxMembers).
const ctxOffers = "on, once, provide, get, effect, tools, setTimeout/setInterval/sleep (with inject: ['timer'])"

// deny throws the error for reading a name the façade does not grant.
func (f *ctxFacade) deny(key string) {
	if f.exists(key) {
		f.r.throwf("ctx.%s: service %q exists but is not injected — add it to inject: inject: ['%s'] "+
			"(the plugin then waits while %q is missing and is parked when it goes away)", key, key, key, key)
	}
	f.r.throwf("ctx.%s does not exist. The mount ctx offers "+ctxOffers+" and the services you list in inject; "+
		"framework internals (root, fiber, plugin, emit, …) are not available to mounts. "+
		"cordis_inspect what:\"services\" lists the services", key)
}

// exists reports whether key names a service: provided now (by anyone, active or not) or
// catalogued with a Go binding.
func (f *ctxFacade) exists(key string) bool {
	if _, ok := f.r.engine.facade.Services[key]; ok {
		return true
	}
	for _, s := range f.c.Services() {
		if s.Key == key {
			return true
		}
	}
	return false
}

func (f *ctxFacade) checkLive(what string) {
	if f.ended.Load() {
		f.r.throwf("%s: this ctx belongs to an activation that has ended (the plugin was unloaded or unmounted)", what)
	}
}

// service resolves a declared service: a value another mount provided (through the
// membrane), or a Go service through its generated binder. Cached per activation.
func (f *ctxFacade) service(key string) goja.Value {
	f.checkLive("ctx." + key)
	if v, ok := f.services[key]; ok {
		return v
	}
	r := f.r
	val, ok := f.c.Get(key)
	if !ok {
		return goja.Undefined() // declared, not provided right now
	}
	var v goja.Value
	switch x := val.(type) {
	case *Provided:
		v = x.valueIn(r)
	default:
		bind, ok := r.engine.facade.Services[key]
		if !ok {
			r.throwf("ctx.%s: service %q is a Go value with no generated JavaScript binding, so mounts cannot use it "+
				"(declare it in the catalog and regenerate the façade)", key, key)
		}
		obj, err := bind(r, val)
		if err != nil {
			r.throw(fmt.Errorf("ctx.%s: %w", key, err))
		}
		v = obj
	}
	if f.services == nil {
		f.services = map[string]goja.Value{}
	}
	f.services[key] = v
	return v
}

// member builds one verb.
func (f *ctxFacade) member(key string) goja.Value {
	r := f.r
	switch key {
	case "on":
		return r.Func("ctx.on", func(call goja.FunctionCall) goja.Value { return f.on(call, "ctx.on", false) })
	case "once":
		return r.Func("ctx.once", func(call goja.FunctionCall) goja.Value { return f.on(call, "ctx.once", true) })
	case "provide":
		return r.Func("ctx.provide", f.provide)
	case "get":
		return r.Func("ctx.get", func(call goja.FunctionCall) goja.Value {
			key := argString(r, call, 0, "ctx.get", "name")
			if key == "tools" {
				return f.Get("tools")
			}
			if f.injects(key) {
				return f.service(key)
			}
			f.deny(key)
			return nil
		})
	case "effect":
		return r.Func("ctx.effect", f.effect)
	case "tools":
		return f.toolsView()
	case "setTimeout":
		return r.Func("ctx.setTimeout", func(call goja.FunctionCall) goja.Value { return f.schedule(call, "ctx.setTimeout", false) })
	case "setInterval":
		return r.Func("ctx.setInterval", func(call goja.FunctionCall) goja.Value { return f.schedule(call, "ctx.setInterval", true) })
	case "sleep":
		return r.Func("ctx.sleep", f.sleep)
	}
	panic("unreachable: ctx member " + key)
}

// on subscribes a listener to a catalogued event through its generated adapter.
func (f *ctxFacade) on(call goja.FunctionCall, method string, once bool) goja.Value {
	r := f.r
	name := argString(r, call, 0, method, "event")
	fn := argCallback(r, call, 1, method, "listener")
	f.checkLive(method)
	adapt, ok := r.engine.facade.Events[name]
	if !ok {
		r.throwf("%s: there is no event %q%s; list the events this runtime has with cordis_inspect what:\"events\"",
			method, name, suggest(name, r.engine.facade.EventNames()))
	}
	release := f.take(quotaListeners, method)
	var off func()
	fn = f.strikeOut(name, fn, func() {
		if off != nil {
			off()
		}
	})
	if once {
		inner := fn
		var fired atomic.Bool
		fn = func(this goja.Value, args ...goja.Value) (goja.Value, error) {
			if !fired.CompareAndSwap(false, true) {
				return goja.Undefined(), nil
			}
			if off != nil {
				off()
			}
			return inner(this, args...)
		}
	}
	kitOff, err := adapt(r, f.c, fn)
	if err != nil {
		release()
		r.throw(fmt.Errorf("%s(%q): %w", method, name, err))
	}
	off = func() { kitOff(); release() }
	disposer := "ctx.on disposer"
	if once {
		disposer = "ctx.once disposer"
	}
	return r.Func(disposer, func(goja.FunctionCall) goja.Value {
		off()
		return goja.Undefined()
	})
}

// suggest returns ` (did you mean "x"?)` for the closest known name, if any is close.
func suggest(name string, known []string) string {
	best, bestD := "", len(name)/2+2
	for _, k := range known {
		if d := editDistance(name, k); d < bestD || d == bestD && best == "" && strings.Contains(k, name) {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// provide offers value to other mounts under name, as an effect of this mount.
func (f *ctxFacade) provide(call goja.FunctionCall) goja.Value {
	r := f.r
	name := argString(r, call, 0, "ctx.provide", "name")
	if name == "" {
		r.throw(&conv.ArgError{Method: "ctx.provide", Param: "name", Want: "a non-empty service name", Got: "an empty string"})
	}
	f.checkLive("ctx.provide")
	seam := f.seam(name, call.Argument(1))
	release := f.take(quotaServices, "ctx.provide")
	var value any = &Provided{realm: r, value: call.Argument(1), name: name}
	if seam != nil {
		value = seam.value()
	}
	var err error
	r.Unlocked(func() { err = f.c.Provide(name, value) })
	if err == nil && seam != nil {
		// The implementation ends with the activation: a Go value that outlives it fails
		// its calls instead of running the code of a mount that is gone.
		err = f.c.Effect(func() error { seam.end(); return nil })
	}
	if err != nil {
		release()
		if seam != nil {
			seam.end()
		}
		r.throw(fmt.Errorf("ctx.provide(%q): %w", name, err))
	}
	return goja.Undefined()
}

// seam returns the JavaScript implementation of interface service name that v provides,
// checked against the interface, or nil when name is not a catalogued service. A
// catalogued concrete service cannot be provided from JavaScript at all. Lock held.
func (f *ctxFacade) seam(name string, v goja.Value) *seam {
	r := f.r
	fc := r.engine.facade
	if a, ok := fc.Seams[name]; ok {
		s, err := newSeam(a, r, name, v)
		if err != nil {
			r.throwf("ctx.provide(%q): %s", name, err)
		}
		return s
	}
	if _, ok := fc.Services[name]; ok {
		r.throwf("ctx.provide: %q is a Go service declared in the catalog; a JavaScript value cannot stand in for it — pick another name "+
			"(only an abstract seam, a service whose Go type is an interface, can be implemented in JavaScript; "+
			"if %q is one, regenerate the façade so that it has its seam adapter)", name, name)
	}
	return nil
}

// effect registers fn as a disposer that runs when the plugin unloads or is unmounted,
// within the activation's teardown budget (see teardownBudget).
func (f *ctxFacade) effect(call goja.FunctionCall) goja.Value {
	r := f.r
	fn := argCallback(r, call, 0, "ctx.effect", "dispose")
	f.checkLive("ctx.effect")
	f.teardown.add()
	if err := f.c.Effect(func() error { return f.runDisposer(fn) }); err != nil {
		f.teardown.undo()
		r.throw(fmt.Errorf("ctx.effect: %w", err))
	}
	return goja.Undefined()
}

// timer returns the kit timer for method, which needs inject: ['timer'].
func (f *ctxFacade) timer(method string) *kit.Timer {
	r := f.r
	f.checkLive(method)
	if !f.injects("timer") {
		r.throwf("%s needs the timer service: declare inject: ['timer'] on your plugin "+
			"(its timers are effects of the plugin, cleared when it is unmounted)", method)
	}
	t, ok := kit.TimerService.Get(f.c)
	if !ok {
		r.throwf("%s: the timer service is not available right now", method)
	}
	return t
}

func (f *ctxFacade) schedule(call goja.FunctionCall, method string, repeat bool) goja.Value {
	r := f.r
	t := f.timer(method)
	fn := argCallback(r, call, 0, method, "callback")
	d := toDurationOrZero(r, call.Argument(1), method, "ms")
	release := f.take(quotaTimers, method)
	// cancel is set before the timer can run its callback: that needs the lock held here.
	var cancel func()
	stop := func() {
		if cancel != nil {
			cancel()
		}
		release()
	}
	// An interval that keeps spinning to (or near) its bound is cancelled like a looping
	// listener is removed.
	cb := (&striker{r: r, what: "the " + method + " callback", removed: "cancelled", off: stop, share: &f.share}).wrap(fn)
	fire := func() {
		if !repeat {
			// A fired timeout is gone once its goroutine is: the budget bounds those too.
			defer release()
		}
		if !f.throttle(t, method) {
			return
		}
		if err := r.deliver(context.Background(), "a timer callback", cb, nil, nil); err != nil {
			r.report("timer callback failed", err)
		}
	}
	var err error
	if repeat {
		cancel, err = t.SetInterval(f.c, d, fire)
	} else {
		cancel, err = t.SetTimeout(f.c, d, fire)
	}
	if err != nil {
		release()
		r.throw(fmt.Errorf("%s: %w", method, err))
	}
	return r.Func(method+" cancel", func(goja.FunctionCall) goja.Value {
		stop()
		return goja.Undefined()
	})
}

func toDurationOrZero(r *Realm, v goja.Value, method, param string) time.Duration {
	if v == nil || goja.IsUndefined(v) {
		return 0
	}
	return conv.Duration(thrower{r}, v, method, param)
}

func (f *ctxFacade) sleep(call goja.FunctionCall) goja.Value {
	r := f.r
	t := f.timer("ctx.sleep")
	d := toDurationOrZero(r, call.Argument(0), "ctx.sleep", "ms")
	c := f.c
	// A pending sleep holds a goroutine: it counts as a timer.
	release := f.take(quotaTimers, "ctx.sleep")
	// Bounded by the awaiting entry and the mount's lifetime, not by CallTimeout.
	return r.async(0, func(ctx context.Context) (func() goja.Value, error) {
		defer release()
		return nil, t.Sleep(ctx, c, d)
	})
}

// report logs an error nobody awaits (a timer callback, an emit listener) and hands it to
// Options.OnError.
func (r *Realm) report(msg string, err error) {
	r.logger.Error("sandbox: "+msg, "err", err)
	if f := r.engine.onError; f != nil {
		f(r.id, err)
	}
}

// readOnlyObject is a JS object with fixed members that throws on writes.
type readOnlyObject struct {
	r       *Realm
	name    string
	keys    []string
	members map[string]goja.Value
}

func (o *readOnlyObject) Get(key string) goja.Value { return o.members[key] }
func (o *readOnlyObject) Has(key string) bool       { _, ok := o.members[key]; return ok }
func (o *readOnlyObject) Keys() []string            { return o.keys }
func (o *readOnlyObject) Set(key string, _ goja.Value) bool {
	o.r.throwf("%s is read-only: cannot assign %s.%s", o.name, o.name, key)
	return false
}
func (o *readOnlyObject) Delete(key string) bool {
	o.r.throwf("%s is read-only: cannot delete %s.%s", o.name, o.name, key)
	return false
}

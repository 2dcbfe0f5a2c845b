package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
)

// expose mounts code whose apply stores its ctx in globalThis.ctx, so tests can probe it.
func (h *host) expose(inject string) (*Mount, *kit.Fiber) {
	h.t.Helper()
	return h.mustMount(`return { name: 'probe', inject: [` + inject + `], apply(ctx) { globalThis.ctx = ctx } }`)
}

func TestWithheldMembersAreAbsent(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.expose("")
	defer h.unmount(m, f)
	withheld := []string{"root", "parent", "scope", "fiber", "reflect", "registry", "events", "extend", "isolate",
		"intercept", "plugin", "set", "mixin", "emit", "parallel", "serial", "bail", "waterfall", "inject",
		"accessor", "logger", "loader", "hmr", "config", "name", "runtime", "lifecycle", "state", "Context"}
	for _, name := range withheld {
		if got := h.eval(m, `'`+name+`' in ctx`); got != "false" {
			t.Errorf("'%s' in ctx = %s", name, got)
		}
		want := `"ctx.` + name + ` does not exist. The mount ctx offers on, once, provide, get, effect, tools, setTimeout/setInterval/sleep (with inject: ['timer']) and the services you list in inject; framework internals (root, fiber, plugin, emit, …) are not available to mounts. cordis_inspect what:\"services\" lists the services"`
		if got := h.eval(m, `try { ctx.`+name+`; "readable" } catch (e) { e.message }`); got != want {
			t.Errorf("ctx.%s:\n got %s\nwant %s", name, got, want)
		}
	}
	tests := []struct{ src, want string }{
		{`Object.keys(ctx)`, `["on","once","provide","get","effect","tools","setTimeout","setInterval","sleep"]`},
		{`Object.getOwnPropertyNames(ctx).includes('root')`, `false`},
		{`typeof ctx.on`, `"function"`},
		{`try { ctx.root.tools.register({}) } catch (e) { e instanceof TypeError }`, `true`},
		{`try { ctx.on = () => {}; "assigned" } catch (e) { e.message }`, `"ctx is read-only: cannot assign ctx.on (keep your own state in variables of your plugin code)"`},
		{`try { ctx.mine = 1; "assigned" } catch (e) { e.message }`, `"ctx is read-only: cannot assign ctx.mine (keep your own state in variables of your plugin code)"`},
		{`try { delete ctx.on; "deleted" } catch (e) { e.message }`, `"ctx is read-only: cannot delete ctx.on"`},
		{`try { Object.defineProperty(ctx, 'x', { value: 1 }); "defined" } catch (e) { e instanceof TypeError }`, `true`},
		{`try { ctx.tools.register = null; "assigned" } catch (e) { e.message }`, `"ctx.tools is read-only: cannot assign ctx.tools.register"`},
		{`String(ctx)`, `"[object Object]"`},
		{`JSON.stringify(ctx)`, `"{\"tools\":{}}"`},
		{`ctx.then === undefined && ctx[Symbol.iterator] === undefined`, `true`},
		{`(async () => (await ctx) === ctx)()`, `true`},
		{`Object.keys(ctx.tools)`, `["register"]`}, // testFacade binds no tools service (see TestToolsViewIsTheBinding)
		{`ctx.hasOwnProperty('on')`, `true`},
	}
	for _, tt := range tests {
		if got := h.eval(m, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestUndeclaredServicesFail(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.expose("")
	defer h.unmount(m, f)
	notInjected := `"ctx.greeter: service \"greeter\" exists but is not injected — add it to inject: inject: ['greeter'] (the plugin then waits while \"greeter\" is missing and is parked when it goes away)"`
	tests := []struct{ src, want string }{
		{`try { ctx.greeter; "read" } catch (e) { e.message }`, notInjected},
		{`try { typeof ctx.greeter } catch (e) { e.message }`, notInjected},
		{`try { ctx.get('greeter') } catch (e) { e.message }`, notInjected},
		{`try { ctx.timer } catch (e) { e.message.startsWith('ctx.timer: service "timer" exists but is not injected') }`, `true`},
		{`try { ctx.nosuch } catch (e) { e.message.startsWith('ctx.nosuch does not exist.') }`, `true`},
		{`try { ctx.get('nosuch') } catch (e) { e.message.startsWith('ctx.nosuch does not exist.') }`, `true`},
		{`'greeter' in ctx`, `false`},
		{`ctx.get('tools') === ctx.tools`, `true`},
	}
	for _, tt := range tests {
		if got := h.eval(m, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
	// The read is refused lazily, at read time: a tool that reads an undeclared service
	// registers fine and fails when called.
	m2, f2 := h.mustMount(`return { apply(ctx) {
		ctx.tools.register({ name: 'lazy', description: 'd', execute: () => ctx.greeter.hello('x') })
	} }`)
	defer h.unmount(m2, f2)
	if _, err := h.call("lazy", `{}`); err == nil || !strings.Contains(err.Error(), `service "greeter" exists but is not injected`) {
		t.Errorf("got %v", err)
	}
}

func TestGoServiceBinding(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.expose(`'greeter'`)
	defer h.unmount(m, f)
	tests := []struct{ src, want string }{
		{`'greeter' in ctx`, `true`},
		{`Object.keys(ctx).includes('greeter')`, `true`},
		{`ctx.greeter.hello('harness')`, `"hello, harness"`},
		{`ctx.get('greeter') === ctx.greeter`, `true`},
		{`Object.keys(ctx.greeter).sort()`, `["fetch","hello","shout"]`},
		{`[typeof ctx.greeter.secret, typeof ctx.greeter.Secret, typeof ctx.greeter.Hello]`, `["undefined","undefined","undefined"]`},
		{`try { ctx.greeter.hello(42) } catch (e) { [e.name, e.message] }`, `["TypeError","greeter.hello: parameter name: expected a string, got number"]`},
		{`try { ctx.greeter.hello() } catch (e) { e.message }`, `"greeter.hello: parameter name: expected a string, got undefined"`},
		{`ctx.greeter.fetch('x')`, `"body of x"`},
		{`ctx.greeter.fetch('bad:x').catch(e => e.message)`, `"cannot fetch bad:x"`},
		// A sync Go method that emits into this same realm re-enters inline.
		{`const seen = []; ctx.on('bench/tick', (id, text) => seen.push(id + ':' + text)); [ctx.greeter.shout('hey'), seen]`, `[3,["7:hey"]]`},
		// No reflected Go object anywhere: constructor chains stay inside the realm.
		{`ctx.greeter.hello.constructor === Function`, `true`},
	}
	for _, tt := range tests {
		if got := h.eval(m, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
	if h.greeter.secretOK {
		t.Error("an unlisted Go method was called")
	}
}

func TestEventsOnOnce(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`
		globalThis.seen = []
		return { apply(ctx) {
			ctx.on('bench/tick', (id, text) => seen.push('on:' + id + text))
			ctx.once('bench/tick', (id) => seen.push('once:' + id))
			const off = ctx.on('bench/tick', () => seen.push('off'))
			off()
			ctx.on('tools/change', (tool, registered) => seen.push('tools:' + tool + ':' + registered))
			ctx.tools.register({ name: 'mine', description: 'd', execute: () => 1 })
		} }`)
	benchTick.Emit(h.root, tickEvent{ID: 1, Text: "a"})
	benchTick.Emit(h.root, tickEvent{ID: 2, Text: "b"})
	if got := h.eval(m, `seen`); got != `["tools:mine:true","on:1a","once:1","on:2b"]` {
		t.Errorf("got %s", got)
	}
	tests := []struct{ src, want string }{
		{`try { ctx.on('tools/chnage', () => {}) } catch (e) { e.message }`, `"ctx.on: there is no event \"tools/chnage\" (did you mean \"tools/change\"?); list the events this runtime has with cordis_inspect what:\"events\""`},
		{`try { ctx.on('nope', () => {}) } catch (e) { e.message }`, `"ctx.on: there is no event \"nope\"; list the events this runtime has with cordis_inspect what:\"events\""`},
		{`try { ctx.on('bench/tick') } catch (e) { e.message }`, `"ctx.on: parameter listener: expected a function, got undefined"`},
	}
	set(m.realm, "ctx", func(r *Realm) any { return nil })
	m2, f2 := h.expose("")
	defer h.unmount(m2, f2)
	for _, tt := range tests {
		if got := h.eval(m2, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
	// Unmounting removes the listeners: nothing runs afterwards.
	h.unmount(m, f)
	benchTick.Emit(h.root, tickEvent{ID: 3, Text: "c"})
	if strings.Contains(h.log.String(), "on:3c") {
		t.Error("a listener ran after unmount")
	}
}

func TestAwaitedEvent(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`return { inject: ['timer'], apply(ctx) {
		ctx.on('test/ask', async (q) => { await ctx.sleep(5); if (q === 'bad') throw new Error('no answer') })
	} }`)
	defer h.unmount(m, f)
	start := time.Now()
	if err := testAsk.Emit(context.Background(), h.root, askEvent{Question: "ok"}); err != nil {
		t.Errorf("ok: %v", err)
	}
	if time.Since(start) < 5*time.Millisecond {
		t.Error("the async listener was not awaited")
	}
	if err := testAsk.Emit(context.Background(), h.root, askEvent{Question: "bad"}); err == nil || !strings.Contains(err.Error(), "dyn-1: Error: no answer") {
		t.Errorf("bad: %v", err)
	}
}

func TestEffectAndTimers(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`return { inject: ['timer'], apply(ctx) {
		globalThis.ticks = 0
		ctx.effect(() => console.log('effect disposed'))
		ctx.effect(async () => { await 0; console.log('async effect disposed') })
		const stop = ctx.setInterval(() => { if (++ticks === 3) stop() }, 1)
		ctx.setTimeout(() => console.log('timeout fired'), 1)
		const never = ctx.setTimeout(() => console.log('cancelled timeout fired'), 5)
		never()
	} }`)
	deadline := time.Now().Add(2 * time.Second)
	for h.eval(m, `ticks`) != "3" || !strings.Contains(h.log.String(), "timeout fired") {
		if time.Now().After(deadline) {
			t.Fatalf("ticks %s, log %s", h.eval(m, `ticks`), h.log.String())
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond)
	if got := h.eval(m, `ticks`); got != "3" {
		t.Errorf("interval ran after stop: %s", got)
	}
	h.unmount(m, f)
	log := h.log.String()
	for _, want := range []string{"effect disposed", "async effect disposed"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if strings.Contains(log, "cancelled timeout fired") {
		t.Error("a cancelled timeout fired")
	}
	if i, j := strings.Index(log, "async effect disposed"), strings.Index(log, "msg=\"effect disposed"); i > j {
		t.Error("effects did not run newest first")
	}

	// Without inject: ['timer'] the helpers teach.
	m2, f2 := h.expose("")
	defer h.unmount(m2, f2)
	for _, name := range []string{"setTimeout", "setInterval", "sleep"} {
		want := `"ctx.` + name + ` needs the timer service: declare inject: ['timer'] on your plugin (its timers are effects of the plugin, cleared when it is unmounted)"`
		if got := h.eval(m2, `try { ctx.`+name+`(() => {}, 1) } catch (e) { e.message }`); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	// A ctx kept past its activation refuses to work.
	h.unmount(m2, f2)
	m3, f3 := h.mustMount(`return (ctx) => {}`)
	defer h.unmount(m3, f3)
}

func TestStaleCtx(t *testing.T) {
	h := newHost(t, nil)
	// A consumer that keeps its ctx across a reload gets a fresh one; the old one is dead.
	mp, fp := h.mustMount(`return { apply(ctx) { ctx.provide('dep', 1) } }`)
	mc, fc := h.mustMount(`globalThis.ctxs = []; return { inject: ['dep'], apply(ctx) { ctxs.push(ctx) } }`)
	defer h.unmount(mc, fc)
	h.unmount(mp, fp)
	if fc.State() != kit.StatePending {
		t.Fatalf("consumer state %s", fc.State())
	}
	mp2, fp2 := h.mustMount(`return { apply(ctx) { ctx.provide('dep', 2) } }`)
	defer h.unmount(mp2, fp2)
	tests := []struct{ src, want string }{
		{`ctxs.length`, `2`},
		{`ctxs[0] !== ctxs[1]`, `true`},
		{`ctxs[1].dep`, `2`},
		{`try { ctxs[0].dep } catch (e) { e.message }`, `"ctx.dep: this ctx belongs to an activation that has ended (the plugin was unloaded or unmounted)"`},
		{`try { ctxs[0].on('bench/tick', () => {}) } catch (e) { e.message }`, `"ctx.on: this ctx belongs to an activation that has ended (the plugin was unloaded or unmounted)"`},
	}
	for _, tt := range tests {
		if got := h.eval(mc, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestUnhandledRejectionIsReported(t *testing.T) {
	var reported []string
	h := newHost(t, nil)
	h.sb.onError = func(mount string, err error) { reported = append(reported, mount+": "+err.Error()) }
	m, f := h.mustMount(`return { apply(ctx) { Promise.reject(new Error('lost')); Promise.reject(1).catch(() => {}) } }`)
	defer h.unmount(m, f)
	if !strings.Contains(h.log.String(), `msg="sandbox: unhandled promise rejection" mount=dyn-1 err="Error: lost"`) {
		t.Errorf("log: %s", h.log.String())
	}
	if len(reported) != 1 || reported[0] != "dyn-1: dyn-1: Error: lost" {
		t.Errorf("reported %q", reported)
	}
}

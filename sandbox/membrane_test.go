package sandbox

import (
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

const greeterProvider = `return { name: 'greeter-js', apply(ctx) {
	let greeting = 'hi'
	ctx.provide('greeterjs', {
		greet(name) { return greeting + ' ' + name },
		setGreeting(g) { greeting = g },
		data: { list: [1, 'two', { three: 3 }], nested: { deep: true } },
		async later(x) { await 0; return x + '!' },
		fail() { throw new TypeError('nope') },
		async failLater() { await 0; throw new Error('rejected over there') },
		each(items, fn) { return items.map((x, i) => fn(x, i)) },
		self() { return this === undefined ? 'no this' : typeof this.greet },
	})
	ctx.provide('answer', 42)
	ctx.provide('nothing', null)
} }`

const greeterConsumer = `return { name: 'consumer', inject: ['greeterjs', 'answer', 'nothing'], apply(ctx) {
	globalThis.ctx = ctx
	ctx.tools.register({ name: 'greet', description: 'd', parameters: { type: 'object', properties: { name: { type: 'string' } } },
		execute: ({ name }) => ctx.greeterjs.greet(name) })
} }`

// crossMountCases are what greeterConsumer reads of greeterProvider's services (mounted
// as dyn-1), through the membrane: TestCrossMountService in one engine, and
// TestCrossEngineService across two.
var crossMountCases = []struct{ src, want string }{
	{`ctx.answer`, `42`},
	{`ctx.get('answer')`, `42`},
	{`ctx.nothing`, `null`},
	{`ctx.greeterjs.data.list`, `[1,"two",{"three":3}]`},
	{`Array.isArray(ctx.greeterjs.data.list) && ctx.greeterjs.data.list instanceof Array`, `true`},
	{`ctx.greeterjs.data.nested.deep`, `true`},
	{`Object.keys(ctx.greeterjs).length`, `8`},
	{`ctx.greeterjs.greet === ctx.greeterjs.greet`, `true`},
	{`ctx.greeterjs.later('x')`, `"x!"`},
	{`ctx.greeterjs.later('x') instanceof Promise`, `true`},
	{`try { ctx.greeterjs.fail() } catch (e) { [e instanceof Error, e.name, e.message] }`, `[true,"TypeError","nope"]`},
	{`ctx.greeterjs.failLater().catch(e => [e instanceof Error, String(e)])`, `[true,"Error: rejected over there"]`},
	// Callbacks cross the other way; each call converts again.
	{`ctx.greeterjs.each([1, 2], (x, i) => ({ doubled: x * 2, i }))`, `[{"doubled":2,"i":0},{"doubled":4,"i":1}]`},
	{`ctx.greeterjs.self()`, `"function"`},
	// Read-only views: the consumer cannot change the provider's objects.
	{`try { ctx.greeterjs.greet = null; "assigned" } catch (e) { e.message }`, `"cannot assign .greet: this value was provided by dyn-1 and is read-only here; call its methods to change it"`},
	{`try { delete ctx.greeterjs.data; "deleted" } catch (e) { e.message }`, `"cannot delete .data: this value was provided by dyn-1 and is read-only here"`},
	{`const l = ctx.greeterjs.data.list; l.push(4); ctx.greeterjs.data.list.length`, `3`},
	// Live: the provider's state is read at each access.
	{`ctx.greeterjs.setGreeting('hello'); ctx.greeterjs.greet('again')`, `"hello again"`},
	// Different realms: the provider's prototypes never reach the consumer.
	{`Object.getPrototypeOf(ctx.greeterjs.data) === Object.prototype`, `true`},
	{`ctx.greeterjs.greet.constructor === Function`, `true`},
}

func TestCrossMountService(t *testing.T) {
	h := newHost(t, nil)
	mp, fp := h.mustMount(greeterProvider)
	defer func() { h.unmount(mp, fp) }()
	mc, fc := h.mustMount(greeterConsumer)
	defer h.unmount(mc, fc)
	if fc.State() != kit.StateActive {
		t.Fatalf("consumer %s", fc.State())
	}
	if out, err := h.call("greet", `{"name":"harness"}`); err != nil || out != `"hi harness"` {
		t.Fatalf("greet: %s %v", out, err)
	}
	for _, tt := range crossMountCases {
		if got := h.eval(mc, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
	// The provider's realm never got consumer objects either.
	if got := h.eval(mp, `typeof ctx`); got != `"undefined"` {
		t.Errorf("provider globals: %s", got)
	}
}

func TestCrossMountLifecycle(t *testing.T) {
	h := newHost(t, nil)
	// Consumer first: pending, its tool absent.
	mc, fc := h.mustMount(greeterConsumer)
	defer h.unmount(mc, fc)
	if fc.State() != kit.StatePending || strings.Join(fc.WaitingFor(), ",") != "greeterjs,answer,nothing" {
		t.Fatalf("consumer %s waiting for %v", fc.State(), fc.WaitingFor())
	}
	if _, err := h.call("greet", `{"name":"x"}`); err == nil {
		t.Fatal("the pending consumer's tool exists")
	}
	// Provider arrives: the consumer loads through a fresh façade and works.
	mp, fp := h.mustMount(greeterProvider)
	if fc.State() != kit.StateActive {
		t.Fatalf("consumer %s after the provider came", fc.State())
	}
	if out, err := h.call("greet", `{"name":"late"}`); err != nil || out != `"hi late"` {
		t.Fatalf("greet: %s %v", out, err)
	}
	// Provider goes: the consumer is parked, its tool removed; a kept reference fails clearly.
	h.eval(mc, `globalThis.kept = ctx.greeterjs.greet`)
	h.unmount(mp, fp)
	if fc.State() != kit.StatePending {
		t.Fatalf("consumer %s after the provider left", fc.State())
	}
	if _, err := h.call("greet", `{"name":"x"}`); err == nil {
		t.Fatal("the parked consumer's tool still exists")
	}
	if got := h.eval(mc, `try { kept('x') } catch (e) { e.message }`); !strings.Contains(got, "the service was provided by dyn-2, which is no longer mounted") {
		t.Errorf("kept reference: %s", got)
	}
	// Re-provided: back to active.
	mp2, fp2 := h.mustMount(greeterProvider)
	defer h.unmount(mp2, fp2)
	if out, err := h.call("greet", `{"name":"again"}`); err != nil || out != `"hi again"` {
		t.Fatalf("greet: %s %v", out, err)
	}
	// A duplicate provide fails the second provider and leaves the first alone.
	if _, _, err := h.mount(greeterProvider); err == nil || !strings.Contains(err.Error(), `service "greeterjs" is already provided by plugin "greeter-js"`) {
		t.Errorf("duplicate provide: %v", err)
	}
	if out, err := h.call("greet", `{"name":"still"}`); err != nil || out != `"hi still"` {
		t.Fatalf("greet after the duplicate: %s %v", out, err)
	}
}

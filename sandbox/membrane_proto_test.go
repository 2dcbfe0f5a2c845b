package sandbox

import (
	"testing"
)

// A view's prototype chain is the consumer's: __proto__, constructor and
// Object.getPrototypeOf never reach the provider's intrinsics.
func TestViewPrototypeIsTheConsumers(t *testing.T) {
	h := newHost(t, nil)
	mp, fp := h.mustMount(`globalThis.marker = 'provider'
	return { name: 'provider', apply(ctx) {
		class Thing { constructor() { this.n = 1 } get twice() { return this.n * 2 } hello() { return 'hi ' + this.n } }
		ctx.provide('svc', {
			config: { mode: 'safe' },
			bare: Object.create(null),
			thing: new Thing(),
			data: { constructor: 'a string', toString: 'not a function' },
			echo: (x) => x,
			mode: () => globalThis.marker + ':' + ({}).polluted + ':' + Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'),
		})
	} }`)
	defer h.unmount(mp, fp)
	mc, fc := h.mustMount(`return { name: 'consumer', inject: ['svc'], apply(ctx) { globalThis.ctx = ctx } }`)
	defer h.unmount(mc, fc)
	tests := []struct{ src, want string }{
		{`Object.getPrototypeOf(ctx.svc.config) === Object.prototype`, `true`},
		{`ctx.svc.config.__proto__ === Object.prototype`, `true`},
		{`ctx.svc.config.constructor === Object`, `true`},
		{`ctx.svc.constructor === Object && ctx.svc.__proto__ === Object.prototype`, `true`},
		{`ctx.svc.bare.__proto__ === Object.prototype && ctx.svc.bare.constructor === Object`, `true`},
		{`ctx.svc.thing.constructor === Object && Object.getPrototypeOf(ctx.svc.thing) === Object.prototype`, `true`},
		// The provider's methods and getters on its own prototypes still work.
		{`[ctx.svc.thing.hello(), ctx.svc.thing.twice, ctx.svc.thing.n]`, `["hi 1",2,1]`},
		// Object.prototype members are the consumer's.
		{`ctx.svc.config.hasOwnProperty === Object.prototype.hasOwnProperty && ctx.svc.config.toString === Object.prototype.toString`, `true`},
		{`[ctx.svc.config.hasOwnProperty('mode'), ctx.svc.config.hasOwnProperty('toString'), 'constructor' in ctx.svc.config, String(ctx.svc.config)]`, `[true,false,true,"[object Object]"]`},
		{`ctx.svc.config.__lookupGetter__ === Object.prototype.__lookupGetter__`, `true`},
		// Plain data under those names still crosses.
		{`[ctx.svc.data.constructor, ctx.svc.data.toString]`, `["a string","not a function"]`},
		{`JSON.stringify(ctx.svc.config)`, `"{\"mode\":\"safe\"}"`},
		{`Object.keys(ctx.svc).sort()`, `["bare","config","data","echo","mode","thing"]`},
		// What the consumer does to its own prototypes stays in the consumer.
		{`ctx.svc.config.__proto__.polluted = 'yes'; Object.prototype.polluted === 'yes'`, `true`},
		{`ctx.svc.config.__defineGetter__ === ({}).__defineGetter__`, `true`},
		{`delete Object.prototype.polluted; ctx.svc.mode()`, `"provider:undefined:false"`},
		{`try { ctx.svc.config.constructor.assign(ctx.svc.config, { mode: 'pwned' }) } catch (e) { e.message.slice(0, 30) }`, `"cannot assign .mode: this valu"`},
		{`ctx.svc.config.constructor.constructor('return globalThis.marker')()`, `undefined`},
		{`ctx.svc.config.mode`, `"safe"`},
	}
	for _, tt := range tests {
		if got := h.eval(mc, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

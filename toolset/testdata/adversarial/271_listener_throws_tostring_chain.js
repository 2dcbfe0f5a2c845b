// expect: ok
// check: probe -> "ok":true
// The listener runs when probe is registered; what it throws is reported without its toString.
return { name: 'a', apply(ctx) {
	ctx.on('tools/change', () => { throw { toString() { throw { toString() { throw 1 } } } } })
	ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ ok: true }) })
} }

// expect: ok
// check: probe -> "ok":true
// An unhandled rejection whose value's toString throws a value whose toString throws is
// reported without calling either.
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' },
	execute: () => { Promise.reject({ toString() { throw { toString() { throw 2 } } } }); return { ok: true } } }) } }

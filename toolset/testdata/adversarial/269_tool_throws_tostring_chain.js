// expect: ok
// check: probe -> [object Object]
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' },
	execute: () => { throw { toString() { throw { toString() { throw { toString() { for (;;) {} } } } } } } } }) } }

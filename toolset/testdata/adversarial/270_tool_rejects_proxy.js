// expect: ok
// check: probe -> [object Proxy]
const loop = () => { for (;;) {} }
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' },
	execute: async () => { await null; throw new Proxy({}, { get: loop, getPrototypeOf: loop, getOwnPropertyDescriptor: loop }) } }) } }

// expect: ok
// check: probe -> Error: trap
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => new Proxy({}, { ownKeys() { throw new Error("trap") } }) }) } }

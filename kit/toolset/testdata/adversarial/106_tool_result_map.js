// expect: ok
// check: probe -> {}
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => new Map([[1, 2]]) }) } }

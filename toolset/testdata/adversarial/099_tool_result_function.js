// expect: ok
// check: probe -> execute must return JSON data
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => () => 1 }) } }

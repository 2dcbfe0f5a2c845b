// expect: parameters.type must be
// check: nothing registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'string' }, execute: () => 1 }) } }

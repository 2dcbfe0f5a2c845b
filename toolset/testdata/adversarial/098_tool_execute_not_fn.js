// expect: expected a function
// check: nothing registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object' }, execute: 'ESCAPED' }) } }

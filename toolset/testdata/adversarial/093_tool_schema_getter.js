// expect: getter trap
// check: nothing registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', get parameters() { throw new Error('getter trap') }, execute: () => 1 }) } }

// expect: ok
// check: nothing registered under __proto__
return { name: 'a', apply(ctx) { ctx.tools.register({ name: '__proto__', description: 'd', parameters: { type: 'object' }, execute: () => 1 }) } }

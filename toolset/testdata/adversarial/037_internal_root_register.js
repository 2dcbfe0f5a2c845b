// expect: does not exist
// check: classic ctx.root.tools.register bypass; nothing registered
return { name: 'a', apply(ctx) { ctx.root.tools.register({ name: 'escaped', description: 'd', parameters: { type: 'object' }, execute: () => 1 }) } }

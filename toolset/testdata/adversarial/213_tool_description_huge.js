// expect: tool.description: expected at most
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd'.repeat(9 << 20), execute: () => 1 }) } }

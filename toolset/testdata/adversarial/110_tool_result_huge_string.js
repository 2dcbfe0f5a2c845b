// expect: ok
// check: probe -> probe
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => "x".repeat(9 << 20) }) } }

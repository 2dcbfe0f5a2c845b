// expect: ok
// check: probe -> probe
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => { const a = {}; a.a = a; return a } }) } }

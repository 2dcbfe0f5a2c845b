// expect: ok
// check: probe -> probe
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => { let a = []; for (let i = 0; i < 100000; i++) a = [a]; return a } }) } }

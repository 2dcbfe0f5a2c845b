// expect: nested at most
// check: nothing registered
return { name: 'a', apply(ctx) { let s = { type: 'string' }; for (let i = 0; i < 2000; i++) s = { type: 'object', properties: { x: s } }; ctx.tools.register({ name: 'probe', description: 'd', parameters: s, execute: () => 1 }) } }

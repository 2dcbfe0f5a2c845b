// expect: ok
// check: probe -> "has":false
return { name: 'a', apply(ctx) { const all = { ...ctx }; const has = 'canarysvc' in all; ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ has }) }) } }

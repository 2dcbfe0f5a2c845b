// expect: ok
// check: probe -> "leak":false
return { name: 'a', apply(ctx) { const s = JSON.stringify(Object.entries(ctx)) + JSON.stringify(ctx); const leak = s.includes('canary-secret'); ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ leak }) }) } }

// expect: already registered
// check: after await too
return { name: 'a', async apply(ctx) { await null; ctx.provide('canarysvc', 1) } }

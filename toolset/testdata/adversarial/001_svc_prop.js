// expect: exists but is not injected
// check: nothing provided or registered
return { name: 'a', apply(ctx) { const s = ctx.canarysvc; throw new Error('ESCAPED ' + typeof s) } }

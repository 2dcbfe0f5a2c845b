// expect: exists but is not injected
// check: typeof is denied at read time
return { name: 'a', apply(ctx) { if (typeof ctx.canarysvc !== 'undefined') throw new Error('ESCAPED') } }

// expect: exists but is not injected
// check: direct eval sees the façade, not more
return { name: 'a', apply(ctx) { eval('ctx.canarysvc'); throw new Error('ESCAPED') } }

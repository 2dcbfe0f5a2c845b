// expect: ctx is not defined
// check: eval is always indirect (the sandbox measures its text first), so it sees the realm's global scope: neither the façade nor any local
return { name: 'a', apply(ctx) { eval('ctx.canarysvc'); throw new Error('ESCAPED') } }

// expect: exists but is not injected
// check: destructuring reads through the façade
return { name: 'a', apply(ctx) { const { canarysvc } = ctx; throw new Error('ESCAPED ' + typeof canarysvc) } }

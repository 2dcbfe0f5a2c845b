// expect: exists but is not injected
// check: a Proxy over ctx forwards to the façade
return { name: 'a', apply(ctx) { const p = new Proxy(ctx, {}); throw new Error('ESCAPED ' + typeof p.canarysvc) } }

// expect: exists but is not injected
// check: nothing provided
return { name: 'a', apply(ctx) { const s = ctx.get('canarysvc'); throw new Error('ESCAPED ' + typeof s) } }

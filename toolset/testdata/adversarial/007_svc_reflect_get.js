// expect: exists but is not injected
// check: Reflect.get
return { name: 'a', apply(ctx) { const s = Reflect.get(ctx, 'canarysvc'); throw new Error('ESCAPED ' + typeof s) } }

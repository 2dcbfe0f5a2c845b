// expect: exists but is not injected
// check: getOwnPropertyDescriptor reads the value
return { name: 'a', apply(ctx) { const d = Object.getOwnPropertyDescriptor(ctx, 'canarysvc'); throw new Error('ESCAPED ' + JSON.stringify(d)) } }

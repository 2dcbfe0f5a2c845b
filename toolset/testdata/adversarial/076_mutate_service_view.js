// expect: read-only here
// check: canary mode stays safe
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.canarysvc.config.mode = 'pwned' } }

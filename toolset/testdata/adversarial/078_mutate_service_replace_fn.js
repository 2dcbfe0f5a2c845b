// expect: read-only here
// check: canary secret unchanged
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.canarysvc.secret = () => 'ESCAPED' } }

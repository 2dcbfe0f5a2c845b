// expect: read-only here
// check: canary keys unchanged
return { name: 'a', inject: ['canarysvc'], apply(ctx) { delete ctx.canarysvc.secret } }

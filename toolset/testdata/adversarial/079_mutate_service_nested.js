// expect: read-only here
// check: canary nested value unchanged
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.canarysvc.nested.deep.value = 'ESCAPED' } }

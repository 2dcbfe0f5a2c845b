// expect: ok
// check: results are copies: canary unchanged
return { name: 'a', inject: ['canarysvc'], apply(ctx) { const l = ctx.canarysvc.list(); l.push('ESCAPED'); l[0] = 'x' } }

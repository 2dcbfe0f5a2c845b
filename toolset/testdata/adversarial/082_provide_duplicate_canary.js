// expect: already registered
// check: canary still provides canarysvc
return { name: 'a', apply(ctx) { ctx.provide('canarysvc', { secret: () => 'ESCAPED' }) } }

// expect: read-only here
// check: a view's prototype is this realm's
return { name: 'a', inject: ['canarysvc'], apply(ctx) { Object.getPrototypeOf(ctx.canarysvc.config).polluted = 1; ctx.canarysvc.config.__proto__.polluted2 = 2; Object.getPrototypeOf(ctx.canarysvc.echo).polluted = 3; Object.getPrototypeOf(ctx.canarysvc.list()).polluted = 4 } }

// expect: ctx is read-only
// check: no delete
return { name: 'a', apply(ctx) { delete ctx.tools } }

// expect: ctx is read-only
// check: no assignment
return { name: 'a', apply(ctx) { ctx.on = () => 'ESCAPED' } }

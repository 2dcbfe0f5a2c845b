// expect: is a Go service declared in the catalog
// check: the tools registry is not replaced
return { name: 'a', apply(ctx) { ctx.provide('tools', { register: () => 'ESCAPED' }) } }

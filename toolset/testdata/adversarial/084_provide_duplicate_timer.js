// expect: is a Go service declared in the catalog
// check: the timer service is not replaced
return { name: 'a', apply(ctx) { ctx.provide('timer', {}) } }

// expect: already registered
// check: the timer service is not replaced
return { name: 'a', apply(ctx) { ctx.provide('timer', {}) } }

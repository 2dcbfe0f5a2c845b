// expect: needs the timer service
// check: ctx timers need inject timer
return { name: 'a', apply(ctx) { ctx.setTimeout(() => {}, 1) } }

// expect: more than 1000 timers at once (Limits.MaxTimers)
// check: a mount may not hold more than Limits.MaxTimers timers; the failed mount leaves none behind
return { name: 'a', inject: ['timer'], apply(ctx) { for (let i = 0; i < 5000; i++) ctx.setTimeout(() => {}, 60000) } }

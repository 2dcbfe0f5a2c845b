// expect: ctx.sleep: more than 1000 timers at once (Limits.MaxTimers)
// check: every pending ctx.sleep holds a goroutine, so it counts as a timer
return { name: 'a', inject: ['timer'], apply(ctx) { for (;;) ctx.sleep(1e9) } }

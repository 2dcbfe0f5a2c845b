// expect: ok
// check: probe -> Limits.MaxTimers
// A timer that schedules more (here 32; two is enough) would reach hundreds of thousands of timers, and goroutines, in seconds.
return { name: 'a', inject: ['timer'], apply(ctx) {
  let hit
  const capped = new Promise((resolve) => { hit = resolve })
  const boom = () => {
    try { for (let i = 0; i < 32; i++) ctx.setTimeout(boom, 0) } catch (e) { hit(String(e)) }
  }
  boom()
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => capped })
} }

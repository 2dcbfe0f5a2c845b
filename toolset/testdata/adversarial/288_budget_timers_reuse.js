// expect: ok
// check: probe -> "ok"
// Cancelled timers give their budget back: a plugin may create any number over time.
return { name: 'a', inject: ['timer'], apply(ctx) {
  for (let round = 0; round < 5; round++) {
    const held = []
    for (let i = 0; i < 1000; i++) held.push(round % 2 ? ctx.setInterval(() => {}, 60000) : ctx.setTimeout(() => {}, 60000))
    for (const cancel of held) cancel()
  }
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => 'ok' })
} }

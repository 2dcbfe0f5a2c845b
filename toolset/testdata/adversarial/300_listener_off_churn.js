// expect: ok
// check: probe -> "seen":2,"removedRan":0
// Listeners removed with their disposer drop their function at once (so a removed
// listener cannot keep a realm reachable) and never run again, while the hub still
// holds their dead entries; the live listener behind them still sees every event.
return { name: 'churn', apply(ctx) {
  let seen = 0
  let removedRan = 0
  for (let i = 0; i < 200; i++) ctx.on('tools/change', () => { removedRan++ })()
  ctx.on('tools/change', (tool) => { if (tool === 'churn_a' || tool === 'churn_b') seen++ })
  for (let i = 0; i < 200; i++) ctx.on('tools/change', () => { removedRan++ })()
  for (const name of ['churn_a', 'churn_b']) {
    ctx.tools.register({ name, description: 'd', parameters: { type: 'object' }, execute: () => 1 })
  }
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ seen, removedRan }) })
} }

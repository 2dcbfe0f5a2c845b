// expect: ok
// check: probe -> Limits.MaxListeners
// A listener that registers itself again on every event doubles every event.
return { name: 'a', apply(ctx) {
  let caught = 'not capped'
  const f = () => { if (caught !== 'not capped') return; try { ctx.on('tools/change', f) } catch (e) { caught = String(e) } }
  ctx.on('tools/change', f)
  for (let i = 0; i < 11; i++) ctx.tools.register({ name: 'dbl_' + i, description: 'd', parameters: { type: 'object' }, execute: () => i })
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => caught })
} }

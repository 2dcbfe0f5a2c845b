// expect: ok
// check: probe -> "denied":true
return { name: 'a', apply(ctx) {
  const names = Object.getOwnPropertyNames(ctx)
  let denied = true
  for (const n of names) { try { const v = ctx[n]; if (n === 'canarysvc') denied = false } catch (e) {} }
  if (names.includes('canarysvc')) throw new Error('ESCAPED')
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ denied, n: names.length }) }) } }

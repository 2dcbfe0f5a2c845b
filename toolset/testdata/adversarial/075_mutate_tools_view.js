// expect: ok
// check: probe -> "ok":true
return { name: 'a', apply(ctx) {
  for (const f of [() => { ctx.tools.register = () => 'ESCAPED' }, () => { delete ctx.tools.schemas }, () => { ctx.tools.get = null }]) { try { f() } catch (e) {} }
  const s = ctx.tools.schemas()
  s.length = 0
  const one = ctx.tools.get('canary_probe'); if (one) { one.name = 'x'; one.execute = () => 'ESCAPED' }
  const ok = ctx.tools.schemas().some((t) => t.name === 'canary_probe') && ctx.tools.get('canary_probe').execute === undefined && typeof ctx.tools.register === 'function'
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ ok }) }) } }

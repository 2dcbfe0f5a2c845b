// expect: ok
// check: probe -> "denied":true
return { name: 'a', apply(ctx) {
  let denied = false
  ctx.on('tools/change', () => { try { ctx.canarysvc; throw new Error('ESCAPED') } catch (e) { if (String(e).includes('ESCAPED')) throw e; denied = true } })
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ denied }) }) } }

// expect: ok
// check: probe -> "ok":true
return { name: 'a', apply(ctx) {
  for (const f of [() => Object.defineProperty(ctx, 'canarysvc', { value: 1 }), () => Object.setPrototypeOf(ctx, { canarysvc: 1 }), () => Object.freeze(ctx), () => Object.preventExtensions(ctx)]) { try { f() } catch (e) {} }
  const ok = typeof ctx.on === 'function' && typeof ctx.tools.register === 'function'
  let denied = false
  try { ctx.canarysvc } catch (e) { denied = true }
  if (!denied) throw new Error('ESCAPED')
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ ok }) }) } }

// expect: ok
// check: probe -> "ok":true
return { name: 'a', apply(ctx) {
  let ok = true
  try { ctx.get(42) } catch (e) { ok = !(e instanceof Object) || Object.getPrototypeOf(e).constructor.constructor('return this')() === globalThis }
  if (!ok) throw new Error('ESCAPED')
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ ok }) }) } }

// expect: ok
// check: probe -> "ok":true
return { name: 'a', apply(ctx) {
  const t = ctx.tools
  const tries = [() => t.call('cordis_unmount', { id: 'dyn-1' }), () => t.execute('cordis_unmount', { id: 'dyn-1' }), () => t.get('cordis_unmount').execute({ id: 'dyn-1' }), () => t.unregister('canary_probe'), () => ctx.get('tools').dispose()]
  let ok = true
  for (const f of tries) { try { f(); ok = false } catch (e) {} }
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ ok }) }) } }

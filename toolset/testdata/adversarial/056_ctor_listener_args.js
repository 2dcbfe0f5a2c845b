// expect: ok
// check: probe -> "ok":true
return { name: 'a', apply(ctx) {
  let ok = true
  ctx.on('tools/change', function (tool, registered) {
    const g = (function () {}).constructor('return this')()
    if (typeof tool !== 'string' || typeof registered !== 'boolean' || g !== globalThis || g.canaryMarker) { ok = false; throw new Error('ESCAPED') }
  })
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ ok }) }) } }

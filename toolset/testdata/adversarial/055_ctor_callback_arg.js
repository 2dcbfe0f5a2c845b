// expect: ok
// check: probe -> "ok":true
return { name: 'a', inject: ['canarysvc'], apply(ctx) {
  let seen
  ctx.canarysvc.call(function (x) { seen = [typeof x, this === undefined || this === globalThis] ; return 1 })
  const back = ctx.canarysvc.echo({ a: 1, f: () => 2 })
  const g = back.constructor.constructor('return this')()
  if (g !== globalThis || g.canaryMarker) throw new Error('ESCAPED')
  const ok = seen[0] === 'number'
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ ok }) }) } }

// expect: ok
// check: Function.prototype.call/apply/bind on façade functions stay in the façade
return { name: 'a', apply(ctx) {
  const fake = { canarysvc: 1 }
  for (const f of [() => Function.prototype.call.call(ctx.get, fake, 'canarysvc'), () => Reflect.apply(ctx.get, {}, ['canarysvc']), () => ctx.get.bind(fake)('canarysvc')]) {
    let r
    try { r = f() } catch (e) { if (!String(e).includes('not injected')) throw e; continue }
    throw new Error('ESCAPED ' + typeof r)
  }
} }

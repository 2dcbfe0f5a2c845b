// expect: ok
// check: probe -> "ok":true
return { name: 'a', inject: ['canarysvc'], apply(ctx) {
  let ok = true
  ctx.canarysvc.call(function (x) { try { this.config.mode = 'pwned'; ok = false } catch (e) {} return x })
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ ok }) }) } }

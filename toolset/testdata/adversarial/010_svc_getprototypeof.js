// expect: ok
// check: probe -> "isObjectProto":true
return { name: 'a', apply(ctx) {
  const p = Object.getPrototypeOf(ctx)
  if (p && ('canarysvc' in p || 'root' in p)) throw new Error('ESCAPED')
  const isObjectProto = p === Object.prototype
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ isObjectProto }) }) } }

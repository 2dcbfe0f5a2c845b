// expect: ok
// check: a getter passed to the provider runs in this realm only (or is copied)
return { name: 'a', inject: ['canarysvc'], apply(ctx) {
  let hits = 0
  const evil = { get mode() { hits++; return 'pwned' }, toString() { return 'pwned' } }
  ctx.canarysvc.echo(evil); ctx.canarysvc.call(() => evil)
} }

// expect: ok
// check: a cyclic value across the membrane is bounded
return { name: 'a', inject: ['canarysvc'], apply(ctx) {
  const a = { }; a.self = a
  try { ctx.canarysvc.echo(a) } catch (e) {}
  const arr = []; arr.push(arr)
  try { ctx.canarysvc.echo(arr) } catch (e) {}
} }

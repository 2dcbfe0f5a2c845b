// expect: ok
// check: a Proxy passed across is read through, never installed
return { name: 'a', inject: ['canarysvc'], apply(ctx) {
  const p = new Proxy({}, { get: () => { throw new Error('trap') }, ownKeys: () => { throw new Error('trap') }, getPrototypeOf: () => { throw new Error('trap') } })
  try { ctx.canarysvc.echo(p) } catch (e) {}
} }

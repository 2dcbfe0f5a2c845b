// expect: ok
// check: realm-local Function only
return { name: 'a', inject: ['canarysvc'], apply(ctx) {
  const g = (ctx.canarysvc.echo).constructor.constructor('return this')()
  if (g !== globalThis || g.canaryMarker !== undefined || typeof g.process === 'object' || typeof g.Buffer !== 'undefined') throw new Error('ESCAPED')
} }

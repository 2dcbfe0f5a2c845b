// expect: ok
// check: probe -> {"own":true}
return { name: 'a', inject: ['canarysvc'], apply(ctx) { Object.getPrototypeOf(ctx.canarysvc.config).polluted = 1; ctx.canarysvc.config.__proto__.polluted2 = 2; Object.getPrototypeOf(ctx.canarysvc.echo).polluted = 3; Object.getPrototypeOf(ctx.canarysvc.list()).polluted = 4
  // A view's prototype is this realm's: the writes land here, and the canary stays clean.
  const own = ({}).polluted === 1 && ({}).polluted2 === 2 && (() => {}).polluted === 3 && [].polluted === 4
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ own }) }) } }

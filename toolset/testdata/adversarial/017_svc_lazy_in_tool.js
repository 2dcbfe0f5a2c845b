// expect: ok
// check: probe -> is not injected
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ secret: ctx.canarysvc.secret(), m: 'ESCAPED' }) }) } }

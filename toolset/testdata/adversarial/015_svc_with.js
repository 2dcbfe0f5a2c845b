// expect: ok
// check: probe -> "t":"undefined"
return { name: 'a', apply(ctx) { const t = new Function('ctx', 'with (ctx) { return typeof canarysvc }')(ctx); if (t === 'object') throw new Error('ESCAPED'); ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ t }) }) } }

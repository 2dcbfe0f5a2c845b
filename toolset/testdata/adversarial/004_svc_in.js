// expect: ok
// check: probe -> {"in":false,"tools":true}
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ in: 'canarysvc' in ctx, tools: 'tools' in ctx }) }) } }

// expect: more than 256 tools at once (Limits.MaxTools)
// check: a mount may not register more than Limits.MaxTools tools; all of them are removed with the failed mount
return { name: 'a', apply(ctx) { for (let i = 0; i < 1000; i++) ctx.tools.register({ name: 'many_' + i, description: 'd', parameters: { type: 'object' }, execute: () => i }) } }

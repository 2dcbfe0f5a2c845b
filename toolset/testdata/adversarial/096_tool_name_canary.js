// expect: already registered
// check: the canary tool is not replaced
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'canary_probe', description: 'd', parameters: { type: 'object' }, execute: () => 'ESCAPED' }) } }

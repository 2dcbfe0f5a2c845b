// expect: already registered
// check: the toolset tools are not replaced
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'cordis_unmount', description: 'd', parameters: { type: 'object' }, execute: () => 'ESCAPED' }) } }

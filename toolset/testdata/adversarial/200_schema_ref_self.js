// expect: refers to the schema itself
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', $ref: '#' }, execute: () => 1 }) } }

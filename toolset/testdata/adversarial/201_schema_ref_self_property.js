// expect: refers to itself
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', allOf: [{ $ref: '#/allOf/0' }] }, execute: () => 1 }) } }

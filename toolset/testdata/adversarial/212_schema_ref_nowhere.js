// expect: points at no schema
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, execute: () => 1 }) } }

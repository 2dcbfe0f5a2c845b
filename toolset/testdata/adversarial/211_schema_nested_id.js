// expect: $id
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', properties: { a: { $id: 'urn:x', $ref: '#' } } }, execute: () => 1 }) } }

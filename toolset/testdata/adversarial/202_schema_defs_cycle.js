// expect: never reaches a property or an item
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { type: 'object', $ref: '#/$defs/a' } } }, execute: () => 1 }) } }

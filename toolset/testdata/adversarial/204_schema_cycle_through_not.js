// expect: never reaches a property or an item
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', $defs: { n: { not: { if: { $ref: '#/$defs/m' } } }, m: { oneOf: [{ $ref: '#/$defs/n' }] } }, properties: { v: { $ref: '#/$defs/n' } } }, execute: () => 1 }) } }

// expect: never reaches a property or an item
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', $anchor: 'top', if: { $ref: '#top' } }, execute: () => 1 }) } }

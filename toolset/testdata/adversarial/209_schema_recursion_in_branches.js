// expect: make one branch hold the recursion
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', properties: { root: { $ref: '#/$defs/node' } }, $defs: { node: { anyOf: [{ type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } } }, { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } } }] } } }, execute: () => 1 }) } }

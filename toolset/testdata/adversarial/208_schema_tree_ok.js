// expect: ok
// check: probe -> leaves
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'a tree of nodes', parameters: { type: 'object', properties: { root: { $ref: '#/$defs/node' } }, $defs: { node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } } } }, execute: () => 'leaves' }) } }

// expect: is not supported in tool schemas
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', $dynamicAnchor: 'n', properties: { a: { $dynamicRef: '#n' } } }, execute: () => 1 }) } }

// expect: nested at most
// check: nothing registered
return { name: 'a', apply(ctx) { const p = { type: 'object', properties: {} }; p.properties.self = p; ctx.tools.register({ name: 'probe', description: 'd', parameters: p, execute: () => 1 }) } }

// expect: against more than 256 schemas
// check: probe -> not registered
return { name: 'a', apply(ctx) { const defs = {}; for (let i = 0; i < 40; i++) defs['d' + i] = { anyOf: [{ $ref: '#/$defs/d' + (i + 1) }, { $ref: '#/$defs/d' + (i + 1) }] }; defs.d40 = { type: 'string' }; ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', properties: { v: { $ref: '#/$defs/d0' } } , $defs: defs }, execute: () => 1 }) } }

// expect: against more than 256 schemas
// check: probe -> not registered
return { name: 'a', apply(ctx) { const defs = {}; for (let i = 0; i < 2000; i++) defs['d' + i] = { $ref: '#/$defs/d' + (i + 1) }; defs.d2000 = { type: 'object' }; ctx.tools.register({ name: 'probe', description: 'd', parameters: { type: 'object', $ref: '#/$defs/d0', $defs: defs }, execute: () => 1 }) } }

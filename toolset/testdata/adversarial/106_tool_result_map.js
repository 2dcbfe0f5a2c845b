// expect: ok
// check: probe -> result: expected JSON data (a plain object or array), got Map
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => new Map([[1, 2]]) }) } }

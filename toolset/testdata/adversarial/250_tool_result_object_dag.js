// expect: ok
// check: probe -> the value converts to more than 1048576 elements
// A DAG of objects as a tool result: each shared object is written (and counted) again.
let o = { v: 0 }; for (let i = 0; i < 40; i++) o = { a: o, b: o }
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => o }) } }

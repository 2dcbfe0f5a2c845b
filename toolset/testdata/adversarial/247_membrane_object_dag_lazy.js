// expect: ok
// check: probe -> lazy:0
// A DAG of objects is not copied: objects cross as live views, read one property at a time,
// so reading one path of it is cheap and works.
let o = { v: 0 }; for (let i = 0; i < 40; i++) o = { a: o, b: o }
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => { let x = ctx.canarysvc.echo(o); for (let i = 0; i < 40; i++) x = i % 2 ? x.a : x.b; return 'lazy:' + x.v } }) } }

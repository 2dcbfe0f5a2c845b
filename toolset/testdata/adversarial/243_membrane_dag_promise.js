// expect: ok
// check: probe -> shared:40
// The DAG as what a bridged promise resolves with, both ways.
let dag = [0]; for (let i = 0; i < 40; i++) dag = [dag, dag]
const shared = (d) => { let n = 0; for (; Array.isArray(d) && d.length === 2; d = d[0]) { if (d[0] !== d[1]) return 'ESCAPED: copied as a tree'; n++ } return 'shared:' + n }
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: async () => shared(await ctx.canarysvc.call(async () => dag)) }) } }

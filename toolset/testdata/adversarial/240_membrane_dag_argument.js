// expect: ok
// check: probe -> shared:40
// A DAG of 40 arrays, each holding the previous one twice (2^40 leaves), through another
// mount's function and back: it crosses as a DAG (each array copied once), in no time, where
// it used to be copied as a tree and hang the host.
let dag = [0]; for (let i = 0; i < 40; i++) dag = [dag, dag]
const shared = (d) => { let n = 0; for (; Array.isArray(d) && d.length === 2; d = d[0]) { if (d[0] !== d[1]) return 'ESCAPED: copied as a tree'; n++ } return 'shared:' + n }
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => shared(ctx.canarysvc.echo(dag)) }) } }

// expect: ok
// check: probe -> result[0][0]
// The DAG copied from another mount is still 2^40 leaves as JSON: returned as this mount's
// tool result it is refused by the JSON conversion's budget, not written out.
let dag = [0]; for (let i = 0; i < 40; i++) dag = [dag, dag]
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ctx.canarysvc.echo(dag) }) } }

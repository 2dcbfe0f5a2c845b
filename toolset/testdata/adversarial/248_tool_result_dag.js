// expect: ok
// check: probe -> result[0][0]
// A tool whose result is the DAG: the JSON result is refused by Limits.MaxNodes, naming the
// path, before it grows to its 8 MiB byte limit.
let dag = [0]; for (let i = 0; i < 40; i++) dag = [dag, dag]
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => dag }) } }

// expect: ok
// check: probe -> the value converts to more than 1048576 elements
// The same, as the error the JSON conversion names: the element bound, not a hang.
let dag = [0]; for (let i = 0; i < 40; i++) dag = [dag, dag]
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ctx.canarysvc.call(() => dag) }) } }

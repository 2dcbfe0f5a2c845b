// expect: ok
// check: probe -> result.k524: the value converts to more than 1048576 elements
// An object of 600 keys all holding one array of 2,000 elements: 1.2 million values once
// written out, under the 8 MiB byte limit (so only the element budget catches it).
const shared = Array(2000).fill(0); const wide = {}; for (let i = 0; i < 600; i++) wide['k' + i] = shared
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => wide }) } }

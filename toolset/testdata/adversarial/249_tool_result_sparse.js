// expect: ok
// check: probe -> result: the value converts to more than 1048576 elements (an array of length 4294967295)
// A sparse tool result is refused by its length, not walked hole by hole.
const sparse = []; sparse.length = 2 ** 32 - 1
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => sparse }) } }

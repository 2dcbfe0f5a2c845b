// expect: ok
// check: probe -> ctx.canarysvc.call(…) argument 0(): the value converts to more than 1048576 elements (an array of length 4294967295)
// A sparse array as a callback's result crossing into the other mount.
const sparse = []; sparse.length = 2 ** 32 - 1
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => { try { ctx.canarysvc.call(() => sparse); return 'ESCAPED: copied' } catch (e) { return e.message } } }) } }

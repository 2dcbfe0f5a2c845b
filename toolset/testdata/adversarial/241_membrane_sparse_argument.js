// expect: ok
// check: probe -> (an array of length 4294967295)
// A sparse array of length 2^32−1 passed through the membrane: refused by its length before
// Go allocates (it used to ask for 64 GiB, a fatal out-of-memory error).
const sparse = []; sparse.length = 2 ** 32 - 1
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => { try { ctx.canarysvc.echo(sparse); return 'ESCAPED: copied' } catch (e) { return e.message } } }) } }

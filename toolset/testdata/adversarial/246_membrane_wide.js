// expect: ok
// check: probe -> ctx.canarysvc.echo(…) argument 0[1]: the value converts to more than 1048576 elements
// Two distinct arrays that together hold more than Limits.MaxNodes elements, passed through
// the membrane: the budget spans the whole value, and the second array is refused by its
// length before any of it is read or copied.
const wide = [Array(1000).fill(0), new Array(2 ** 20 - 1000)]
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => { try { ctx.canarysvc.echo(wide); return 'ESCAPED: copied' } catch (e) { return e.message } } }) } }

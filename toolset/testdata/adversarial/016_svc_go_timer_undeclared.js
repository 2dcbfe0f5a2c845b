// expect: exists but is not injected
// check: a Go service needs inject too
return { name: 'a', apply(ctx) { throw new Error('ESCAPED ' + typeof ctx.timer) } }

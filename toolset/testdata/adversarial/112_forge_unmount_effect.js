// expect: ok
// check: ctx.effect runs only for this mount; canary keeps running
return { name: 'a', apply(ctx) { ctx.effect(() => { globalThis.pwned = 1 }) } }

// expect: ok
// check: five thousand quick effect disposers all run within the teardown bound; unmount succeeds
return { name: 'a', apply(ctx) { for (let i = 0; i < 5000; i++) ctx.effect(() => { globalThis.n = (globalThis.n || 0) + 1 }) } }

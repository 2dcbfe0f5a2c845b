// expect: ok
// check: a disposer cannot register anything during teardown (each try throws and is caught), so unmount leaves nothing behind
return { name: 'a', inject: ['timer'], apply(ctx) {
  for (let i = 0; i < 50; i++) ctx.effect(() => {
    for (const f of [() => ctx.effect(() => {}), () => ctx.on('tools/change', () => {}), () => ctx.setInterval(() => {}, 1),
      () => ctx.provide('escaped', {}), () => ctx.tools.register({ name: 'escaped', description: 'd', execute: () => 1 })]) {
      try { f() } catch (e) {}
    }
  })
} }

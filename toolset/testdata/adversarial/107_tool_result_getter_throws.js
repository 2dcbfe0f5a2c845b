// expect: ok
// check: probe -> Error: getter
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ get x() { throw new Error("getter") } }) }) } }

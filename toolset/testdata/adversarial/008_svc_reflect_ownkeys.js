// expect: ok
// check: probe -> "keys":"on,once,provide,get,effect,tools,setTimeout,setInterval,sleep"
return { name: 'a', apply(ctx) { const keys = Reflect.ownKeys(ctx).map(String).join(); if (keys.includes('canary')) throw new Error('ESCAPED'); ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ keys }) }) } }

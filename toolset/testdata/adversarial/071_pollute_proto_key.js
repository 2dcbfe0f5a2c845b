// expect: ok
// check: a __proto__ key through the membrane is data
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.canarysvc.echo(JSON.parse('{"__proto__": {"polluted": "yes"}}')); ctx.canarysvc.echo({ constructor: { prototype: { polluted: 1 } } }) } }

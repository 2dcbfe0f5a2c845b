// expect: ok
// check: polluted objects passed into the canary carry no pollution
Object.prototype.polluted = 'yes'
return { name: 'a', inject: ['canarysvc'], apply(ctx) { ctx.canarysvc.echo({ a: 1 }); ctx.canarysvc.call((x) => x); ctx.canarysvc.echo([1, 2]) } }

// expect: does not exist
// check: internal withheld
return { name: 'a', apply(ctx) { const v = ctx.registry; throw new Error('ESCAPED ' + typeof v) } }

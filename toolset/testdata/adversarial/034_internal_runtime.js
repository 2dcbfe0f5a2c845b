// expect: does not exist
// check: internal withheld
return { name: 'a', apply(ctx) { const v = ctx.runtime; throw new Error('ESCAPED ' + typeof v) } }

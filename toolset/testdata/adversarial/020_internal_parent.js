// expect: does not exist
// check: internal withheld
return { name: 'a', apply(ctx) { const v = ctx.parent; throw new Error('ESCAPED ' + typeof v) } }

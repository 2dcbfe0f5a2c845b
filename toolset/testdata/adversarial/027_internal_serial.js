// expect: does not exist
// check: internal withheld
return { name: 'a', apply(ctx) { const v = ctx.serial; throw new Error('ESCAPED ' + typeof v) } }

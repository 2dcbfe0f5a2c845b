// expect: ok
// check: ctx prototype is this realm's Object.prototype
return { name: 'a', apply(ctx) { Object.getPrototypeOf(ctx).polluted = 1; ctx.__proto__.polluted = 2 } }

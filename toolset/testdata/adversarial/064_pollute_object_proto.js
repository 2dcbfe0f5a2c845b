// expect: ok
// check: canary ({}).polluted stays undefined
Object.prototype.polluted = 'yes'; Object.defineProperty(Object.prototype, 'toString', { value: () => 'pwned' }); return { name: 'a', apply(ctx) { Object.prototype.polluted = 'again' } }

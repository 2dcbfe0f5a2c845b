// expect: ok
// check: canary functions unchanged
Function.prototype.polluted = 1; Function.prototype.call = function () { return 'pwned' }; Function.prototype.apply = null; return (ctx) => {}

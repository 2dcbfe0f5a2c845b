// expect: ok
// check: canary arrays unchanged
Array.prototype.polluted = 1; Array.prototype.map = function () { return 'pwned' }; Array.prototype.push = null; return (ctx) => {}

// expect: ok
// check: canary strings and JSON unchanged
String.prototype.toUpperCase = () => 'pwned'; String.prototype.polluted = 1; JSON.stringify = () => 'pwned'; return (ctx) => {}

// expect: exists but is not injected
// check: parameter destructuring
return { name: 'a', apply({ canarysvc }) { throw new Error('ESCAPED ' + typeof canarysvc) } }

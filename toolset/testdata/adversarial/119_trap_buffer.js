// expect: Buffer is not defined
// check: trap or ReferenceError
Buffer.from('x')
return (ctx) => {}

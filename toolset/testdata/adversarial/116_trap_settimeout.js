// expect: setTimeout is not available
// check: trap or ReferenceError
setTimeout(() => {}, 1)
return (ctx) => {}

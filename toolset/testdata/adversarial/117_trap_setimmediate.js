// expect: setImmediate is not available
// check: trap or ReferenceError
setImmediate(() => {})
return (ctx) => {}

// expect: process is not defined
// check: trap or ReferenceError
process.exit(1)
return (ctx) => {}

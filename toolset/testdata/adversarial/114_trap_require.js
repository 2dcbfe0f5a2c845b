// expect: require is not available in the mount sandbox
// check: trap or ReferenceError
require('fs')
return (ctx) => {}

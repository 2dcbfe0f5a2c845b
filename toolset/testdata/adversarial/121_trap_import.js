// expect: failed to parse
// check: trap or ReferenceError
import('fs')
return (ctx) => {}

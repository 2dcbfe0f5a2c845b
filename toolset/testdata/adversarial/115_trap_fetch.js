// expect: fetch is not available
// check: trap or ReferenceError
fetch('http://example.com')
return (ctx) => {}

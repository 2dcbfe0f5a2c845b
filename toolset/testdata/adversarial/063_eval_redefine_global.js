// expect: ok
// check: globalThis writes stay in this realm (canary glob check)
globalThis.pwned = true; globalThis.canaryMarker = 'hijacked'; Object.defineProperty(globalThis, 'JSON', { value: null }); return (ctx) => {}

// expect: ok
// check: the body's own Function reaches only this realm
const g = (function () { return this }).constructor('return this')()
if (g !== globalThis || g.canaryMarker !== undefined) throw new Error('ESCAPED')
return (ctx) => {}

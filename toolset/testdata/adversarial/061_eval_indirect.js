// expect: ok
// check: indirect eval is this realm's global
const g = (0, eval)('this'); if (g !== globalThis || g.canaryMarker !== undefined) throw new Error('ESCAPED'); return (ctx) => {}

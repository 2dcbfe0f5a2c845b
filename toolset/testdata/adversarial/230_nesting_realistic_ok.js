// expect: ok
// check: probe -> ok deep 11,22
// Ordinary code with callbacks, a long condition, an else-if and a nested literal is not refused.
return { name: 'nested-ok', apply(ctx) {
  const config = { a: { b: { c: { d: { e: { f: [1, [2, [3, [4, { g: 'deep' }]]]] } } } } } }
  const html = '<ul>' + ['x', 'y', 'z'].map((v, i) => '<li data-i="' + i + '">' + v + '</li>').join('') + '</ul>'
  const ok = (v) => typeof v === 'string' && v.length > 0 && v.length < 100 && !v.includes('<') && v !== 'x' || v === 'y'
  ctx.tools.register({ name: 'probe', description: 'reports the nested values', parameters: { type: 'object' },
    execute: () => {
      if (html.length > 1000) return 'long'
      else if (ok('y')) return `ok ${config.a.b.c.d.e.f[1][1][1][1].g} ${[1, 2].map((n) => `${n}${`${n}`}`).join()}`
      else return 'no'
    } })
} }

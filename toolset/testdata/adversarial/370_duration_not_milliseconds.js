// expect: ok
// check: probe -> ["timer.sleep: parameter d: expected a number of milliseconds, got string","timer.sleep: parameter d: expected a number of milliseconds, got NaN","timer.sleep: parameter d: expected a number of milliseconds, got Infinity","timer.setTimeout: parameter d: expected a number of milliseconds between 0 and 2^63 ns, got -1","timer.setTimeout: parameter d: expected a number of milliseconds between 0 and 2^63 ns, got 1e+300"]
// A duration is a number of milliseconds in JavaScript: a string ("5s"), NaN, ±Infinity, a
// negative number or one past time.Duration's range is refused with the unit in the error,
// never read in another unit or wrapped; no timer is left behind.
return { name: 'a', inject: ['timer'], apply(ctx) {
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: async () => {
    const out = []
    for (const d of ['5s', NaN, Infinity]) {
      try { await ctx.timer.sleep(d); out.push('slept ' + d) } catch (e) { out.push(e.message) }
    }
    for (const d of [-1, 1e300]) {
      try { ctx.timer.setTimeout(d, () => {}); out.push('armed ' + d) } catch (e) { out.push(e.message) }
    }
    return out
  } })
} }
